// Issue 39.5: the personal cabinet lists the person's signed-in devices and signs out the
// others; an administrator signs a person out everywhere. Each test makes its own person,
// so ending sessions never touches the demo accounts other tests are signed in as.
import type { Browser, Page } from '@playwright/test';

import { admin, type Account } from '../support/accounts';
import { restAs } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

const PHONE_AGENT =
  'Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

async function newPerson(
  request: Parameters<typeof restAs>[0],
  tag: string,
): Promise<Account & { id: number }> {
  const rest = await restAs(request, admin);
  const login = `devices-${tag}-${test.info().project.name}-${Date.now().toString(36)}`;
  const password = 'devices-password-1';
  const user = await rest.post<{ id: number }>('/api/user/create-user', {
    name: 'Анна',
    surname: 'Устройствова',
    lastName: 'Сергеевна',
    login,
    password,
    email: `${login}@hospital.example`,
    status: { id: 1 },
    departments: [],
    positions: [],
    rights: [],
  });
  return { login, password, id: user.id };
}

/** A second browser (its own cookies and storage): the person's phone. */
async function phoneOf(browser: Browser, person: Account): Promise<Page> {
  const context = await browser.newContext({
    userAgent: PHONE_AGENT,
    viewport: { width: 360, height: 740 },
    baseURL: process.env.PORTAL_E2E_URL,
  });
  const phone = await context.newPage();
  await signIn(phone, person);
  return phone;
}

test('a person sees the phone they signed in on and signs it out from the ward PC', async ({
  page,
  browser,
  request,
  saveScreenshot,
}) => {
  const person = await newPerson(request, 'own');
  const phone = await phoneOf(browser, person);
  await signIn(page, person);

  await page.goto('/cabinet');
  const devices = page.getByRole('region', { name: 'Устройства, на которых выполнен вход' });
  await expect(devices.getByRole('listitem')).toHaveCount(2);
  const here = devices.getByRole('listitem').filter({ hasText: 'Это устройство' });
  await expect(here).toHaveCount(1);
  await expect(devices.getByRole('listitem').filter({ hasText: 'Chrome, Android' })).toHaveCount(1);
  await saveScreenshot('cabinet-my-sessions');

  await devices.getByRole('button', { name: 'Выйти на всех других устройствах' }).click();
  await expect(page.getByText('Завершено сеансов на других устройствах: 1')).toBeVisible();
  await expect(devices.getByRole('listitem')).toHaveCount(1);
  await expect(devices.getByRole('listitem')).toContainText('Это устройство');

  // The phone's next call is refused and cannot be renewed: its session is over.
  await phone.goto('/cabinet');
  await expect(phone).toHaveURL(/\/login$/);
  await phone.context().close();

  // The ward PC stays signed in.
  await page.reload();
  await expect(devices.getByRole('listitem')).toHaveCount(1);
});

test('an administrator signs a person out on every device', async ({ page, browser, request }) => {
  const person = await newPerson(request, 'admin');
  const phone = await phoneOf(browser, person);

  await signIn(page, admin);
  await page.goto(`/admin/users-management/admin-users/${person.id}`);
  await page.getByRole('button', { name: 'Завершить все сеансы' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Устройствова Анна Сергеевна');
  await dialog.getByRole('button', { name: 'Завершить все сеансы' }).click();
  await expect(page.getByText('Сеансы сотрудника завершены: 1')).toBeVisible();

  await phone.goto('/cabinet');
  await expect(phone).toHaveURL(/\/login$/);
  await phone.context().close();
});
