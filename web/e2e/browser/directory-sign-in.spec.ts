// Issue 39.1: a person the directory knows signs in on the same login form with their
// domain password, against a real slapd (../support/slapd.ts) and a portal of this spec's
// own with PORTAL_LDAP_* set; «Забыли пароль?» then sends them to the domain's reset.
import type { Page } from '@playwright/test';

import { startPortal, type PortalServer } from '../support/portal-server';
import { PEOPLE, SERVICE_DN, SERVICE_PASSWORD, SLAPD, type Slapd, startSlapd } from '../support/slapd';
import { expect, test } from './test';

const ivanova = {
  login: 'ivanova',
  password: 'ivanova-domain-pass',
  employeeNumber: '1001',
  surname: 'Иванова',
  name: 'Мария',
};
const RESET_URL = 'https://passwordreset.hospital.local/';

let slapd: Slapd | undefined;
let portal: PortalServer | undefined;

test.beforeAll(async () => {
  slapd = await startSlapd([ivanova]);
  if (!slapd) return;
  portal = await startPortal({
    PORTAL_LDAP_URL: slapd.url,
    PORTAL_LDAP_BIND_DN: SERVICE_DN,
    PORTAL_LDAP_BIND_PASSWORD: SERVICE_PASSWORD,
    PORTAL_LDAP_USER_BASE: PEOPLE,
    PORTAL_LDAP_CA_FILE: slapd.caFile,
    // Nobody synced her: the directory creates her at her first sign-in.
    PORTAL_LDAP_CREATE_PEOPLE: 'true',
    PORTAL_LDAP_PASSWORD_RESET_URL: RESET_URL,
  });
});

test.afterAll(async () => {
  await portal?.stop();
  await slapd?.stop();
});

async function signInAs(page: Page, login: string, password: string) {
  await page.goto(`${portal?.url ?? ''}/login`);
  await page.getByLabel('Введите логин:').fill(login);
  await page.getByLabel('Введите пароль:').fill(password);
  await page.getByRole('button', { name: 'Войти' }).click();
}

test('a person signs in with the domain password on the same form', async ({ page, saveScreenshot }) => {
  test.skip(!slapd, `${SLAPD} is not installed (apt-get install slapd ldap-utils)`);
  await signInAs(page, ivanova.login, 'not-her-domain-password');
  await expect(page.getByText('Неверный логин или пароль')).toBeVisible();

  await signInAs(page, ivanova.login, ivanova.password);
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByText(ivanova.surname).first()).toBeVisible();
  await saveScreenshot('directory-sign-in-home');
});

test('«Забыли пароль?» sends a domain password to the domain', async ({ page }) => {
  test.skip(!slapd, `${SLAPD} is not installed (apt-get install slapd ldap-utils)`);
  await page.goto(`${portal?.url ?? ''}/forgot-password`);
  await page.getByLabel('Введите логин:').fill(ivanova.login);
  await page.getByRole('button', { name: 'Отправить ссылку' }).click();
  await expect(page.getByText('Если вы входите с паролем домена')).toBeVisible();
  await expect(page.getByRole('link', { name: 'смените пароль домена здесь' })).toHaveAttribute(
    'href',
    RESET_URL,
  );
});
