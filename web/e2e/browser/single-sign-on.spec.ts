// Issue 39.2: staff sign in with the hospital's own accounts through its OpenID provider — the
// whole redirect flow in Chromium against a real provider (../support/oidc.ts) and a portal of
// this spec's own with PORTAL_OIDC_* set; signing out ends the provider's session too, and the
// provider ending a session ends the portal's on every device.
import type { Browser, Page } from '@playwright/test';

import { startOidcProvider, CLIENT_ID, CLIENT_SECRET, type OidcProvider } from '../support/oidc';
import { freePort, startPortal, type PortalServer } from '../support/portal-server';
import { expect, test } from './test';

const PROVIDER_NAME = 'Keycloak больницы';
/** The demo nurse (Смирнова), whom the provider knows by the same login. */
const NURSE = 'nurse';

let provider: OidcProvider | undefined;
let portal: PortalServer | undefined;

test.beforeAll(async () => {
  const address = `127.0.0.1:${await freePort()}`;
  provider = await startOidcProvider(`http://${address}`, {});
  portal = await startPortal({
    PORTAL_HTTP_ADDR: address,
    PORTAL_PUBLIC_URL: `http://${address}`,
    PORTAL_OIDC_ISSUER: provider.issuer,
    PORTAL_OIDC_CLIENT_ID: CLIENT_ID,
    PORTAL_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    PORTAL_OIDC_NAME: PROVIDER_NAME,
  });
});

test.afterAll(async () => {
  await portal?.stop();
  await provider?.stop();
});

/** From the portal's sign-in page through the provider's own page, as `login`. */
async function signInByProvider(page: Page, login: string) {
  await page.goto(`${portal?.url ?? ''}/login`);
  await page.getByRole('link', { name: `Войти через ${PROVIDER_NAME}` }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password the provider checks');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

async function newPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test('a nurse signs in by the hospital’s provider, and signing out ends its session too', async ({
  page,
  saveScreenshot,
}) => {
  await page.goto(`${portal?.url ?? ''}/login`);
  await expect(page.getByRole('link', { name: `Войти через ${PROVIDER_NAME}` })).toBeVisible();
  await saveScreenshot('sso-login-page');

  await signInByProvider(page, NURSE);
  await expect(page.getByText('Вы успешно авторизовались.')).toBeVisible();
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByText('Смирнова').first()).toBeVisible();

  await page.getByRole('button', { name: 'Выход' }).click();
  // The provider asks, as Keycloak does without an ID token hint; then back to the portal.
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  // The provider's session is over as well: its sign-in page is asked again.
  await page.getByRole('link', { name: `Войти через ${PROVIDER_NAME}` }).click();
  await expect(page.locator('input[name="login"]')).toBeVisible();
});

test('a person the portal does not know is told so in Russian', async ({ page, saveScreenshot }) => {
  await signInByProvider(page, 'stranger');
  await expect(page).toHaveURL(/\/login\?sso-error=NOT_IN_PORTAL$/);
  await expect(page.getByRole('alert')).toHaveText(
    'Вход выполнен, но вашей учётной записи нет на портале. Обратитесь к администратору портала.',
  );
  await saveScreenshot('sso-not-in-portal');
});

test('the provider ending a session ends the portal’s on every device', async ({ browser }) => {
  const wardPc = await newPage(browser);
  const phone = await newPage(browser);
  await signInByProvider(wardPc, NURSE);
  await expect(wardPc).toHaveURL(/\/home$/);
  await signInByProvider(phone, NURSE);
  await expect(phone).toHaveURL(/\/home$/);

  // Signed out on the phone, at the provider too: it tells the portal by the back channel.
  await phone.getByRole('button', { name: 'Выход' }).click();
  await phone.getByRole('button', { name: 'Yes, sign me out' }).click();
  await expect(phone).toHaveURL(/\/login$/);

  // The ward PC's session is over: its next look at the portal asks for a sign-in.
  await expect(async () => {
    await wardPc.reload();
    await expect(wardPc).toHaveURL(/\/login/, { timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
});
