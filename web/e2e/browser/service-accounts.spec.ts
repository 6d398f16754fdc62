// Issue 21 point 8: the admin's «Внешние системы» tab against the real binary — a system
// registered with two scopes, its secret shown once and copied, that secret getting a token
// at the OAuth endpoint, a second secret issued beside it, and the system disabled.
import { AxeBuilder } from '@axe-core/playwright';
import type { APIRequestContext, Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** The client-credentials grant as a standard OAuth client sends it: Basic auth, a form body. */
function requestToken(request: APIRequestContext, clientId: string, clientSecret: string) {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
    'base64',
  );
  return request.post('/api/oauth/token', {
    headers: { Authorization: `Basic ${basic}` },
    form: { grant_type: 'client_credentials' },
  });
}

/** The client id and secret of the open «shown once» dialog. */
async function shownCredentials(page: Page, title: string) {
  const dialog = page.getByRole('dialog', { name: title });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(
    'Секрет показывается один раз. Сохраните его сейчас: позже его нельзя будет посмотреть.',
  );
  const clientId = await dialog.getByRole('textbox', { name: 'ID клиента (client_id)' }).inputValue();
  const clientSecret = await dialog
    .getByRole('textbox', { name: 'Секрет клиента (client_secret)' })
    .inputValue();
  return { dialog, clientId, clientSecret };
}

/** Serious or critical axe violations of the page as it stands. */
async function violations(page: Page) {
  const { violations: found } = await new AxeBuilder({ page }).analyze();
  return found
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

test('an admin registers a system, its secret shown once works at the token endpoint, a new one is issued, and disabling refuses it', async ({
  page,
  saveScreenshot,
}) => {
  const name = `Кадровая система ${Date.now().toString(36)}`;
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, admin);
  await page.goto('/admin/users-management');
  await page.getByRole('tab', { name: 'Внешние системы' }).click();
  await expect(page).toHaveURL(/\/admin\/users-management\/service-accounts$/);

  // Registered with two scopes; the admin is its owner unless another person is chosen.
  await page.getByRole('button', { name: 'Подключить систему' }).click();
  const form = page.getByRole('dialog', { name: 'Новая внешняя система' });
  await form.getByRole('button', { name: 'Создать' }).click();
  await expect(form.getByText('Введите название системы')).toBeVisible();
  await expect(form.getByText('Отметьте хотя бы один доступ')).toBeVisible();
  await expect(form.getByRole('textbox', { name: /^Название системы/ })).toBeFocused();
  await form.getByRole('textbox', { name: /^Название системы/ }).fill(name);
  await form.getByRole('textbox', { name: /^Описание/ }).fill('1С:ЗУП: сотрудники, отделения, должности');
  await form.getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' }).check();
  await form.getByRole('checkbox', { name: 'Обучение: чтение результатов (training.read)' }).check();
  await expect(form.getByRole('combobox', { name: /^Ответственный сотрудник/ })).not.toHaveValue('');
  await form.getByRole('button', { name: 'Создать' }).click();

  // The secret, once: copied, kept through Escape, gone once closed.
  const created = await shownCredentials(page, 'Система зарегистрирована');
  expect(created.clientId).toMatch(/^svc-[0-9a-f]{16}$/);
  expect(created.clientSecret.length).toBeGreaterThanOrEqual(43);
  await created.dialog.getByRole('button', { name: 'Скопировать: Секрет клиента (client_secret)' }).click();
  await expect(page.getByText('Скопировано в буфер обмена')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.clientSecret);
  // The form's dialog closes beneath it (a second after the success, spec §9).
  await expect(page.getByRole('dialog', { includeHidden: true })).toHaveCount(1);
  await saveScreenshot('service-accounts-secret', { fullPage: false });
  await page.keyboard.press('Escape');
  await expect(created.dialog).toBeVisible();
  await created.dialog.getByRole('button', { name: 'Я сохранил секрет, закрыть' }).click();
  await expect(created.dialog).toBeHidden();
  expect(await page.content()).not.toContain(created.clientSecret);

  const item = page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
  await expect(item).toContainText('ещё не использовалась');
  await expect(item).toContainText(created.clientId);
  await expect(item).toContainText('Активна');

  // That secret gets a token by the client-credentials grant, with both scopes.
  const granted = await requestToken(page.request, created.clientId, created.clientSecret);
  expect(granted.status()).toBe(200);
  const token = (await granted.json()) as {
    access_token: string;
    token_type: string;
    expires_in: number;
    scope: string;
  };
  expect(token.token_type).toBe('Bearer');
  expect(token.access_token.split('.')).toHaveLength(3);
  expect(token.scope.split(' ').sort()).toEqual(['staff.read', 'training.read']);
  expect(token.expires_in).toBeGreaterThanOrEqual(300);
  expect(token.expires_in).toBeLessThanOrEqual(900);

  // The list says when and from where.
  await page.reload();
  await expect(item).toContainText(
    /Последнее использование: \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}, с адреса 127\.0\.0\.1/,
  );
  await expect(item).toContainText('Сотрудники: чтение (staff.read)');
  await expect(item).toContainText('Обучение: чтение результатов (training.read)');
  await saveScreenshot('service-accounts-list', { fullPage: false });
  expect(await violations(page)).toEqual([]);

  // A second secret, after asking: shown once, and the first one keeps working.
  await item.getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('navigation', { name: 'Навигационная цепочка' })).toContainText(name);
  await page.getByRole('button', { name: 'Выпустить новый секрет' }).click();
  const rotate = page.getByRole('dialog', { name: 'Выпустить новый секрет?' });
  await expect(rotate).toContainText('Предыдущий продолжит работать, пока вы его не отзовёте.');
  await rotate.getByRole('button', { name: 'Выпустить' }).click();
  const rotated = await shownCredentials(page, 'Новый секрет выпущен');
  expect(rotated.clientId).toBe(created.clientId);
  expect(rotated.clientSecret).not.toBe(created.clientSecret);
  await expect(rotated.dialog).toContainText('Предыдущий секрет продолжит работать, пока вы его не отзовёте');
  await rotated.dialog.getByRole('button', { name: 'Я сохранил секрет, закрыть' }).click();
  await expect(rotated.dialog).toBeHidden();
  await expect(page.getByRole('list', { name: 'Действующие секреты' }).getByRole('listitem')).toHaveCount(2);
  // Issued within a minute of each other, the two are told apart by the second (issue 37).
  const issued = await page
    .getByRole('list', { name: 'Действующие секреты' })
    .getByText(/^Выпущен /)
    .allTextContents();
  expect(issued).toHaveLength(2);
  expect(issued[0]).toMatch(/ \d\d:\d\d:\d\d$/);
  expect(issued[0]).not.toBe(issued[1]);
  expect((await requestToken(page.request, created.clientId, rotated.clientSecret)).status()).toBe(200);
  expect((await requestToken(page.request, created.clientId, created.clientSecret)).status()).toBe(200);
  await saveScreenshot('service-account-page');
  expect(await violations(page)).toEqual([]);

  // Disabled, after asking: the token endpoint refuses it as an unknown client.
  await page.getByRole('button', { name: 'Отключить' }).click();
  const disable = page.getByRole('dialog', { name: 'Отключить систему?' });
  await disable.getByRole('button', { name: 'Отключить' }).click();
  await expect(page.getByText('Система отключена', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Включить' })).toBeVisible();
  const refused = await requestToken(page.request, created.clientId, rotated.clientSecret);
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { error: string }).error).toBe('invalid_client');

  await page.getByRole('tab', { name: 'Внешние системы' }).click();
  await expect(item).toContainText('Отключена');
  await page.setViewportSize({ width: 360, height: 760 });
  await page.reload();
  await expect(item).toContainText('Отключена');
  await saveScreenshot('service-accounts-phone');
});
