// Issue 39.4: two-step sign-in. A person connects an authenticator app in the cabinet (QR code
// and key), confirms it with a code, keeps the recovery codes; the next sign-in asks for a code.
// Codes are computed here by RFC 6238 (HMAC-SHA-1 over the 30-second step, node:crypto) from the
// key the page shows, as the app on a phone would.
import { createHmac } from 'node:crypto';

import { admin, type Account } from '../support/accounts';
import { restAs } from '../support/rest';
import { signIn, signOut } from './session';
import { expect, test } from './test';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(secret: string): Buffer {
  const bits = secret
    .replace(/=+$/, '')
    .split('')
    .map((c) => ALPHABET.indexOf(c).toString(2).padStart(5, '0'))
    .join('');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The authenticator's code `offset` steps from now (RFC 6238: SHA-1, 6 digits, 30 s). */
function totp(secret: string, offset = 0): string {
  const counter = Math.floor(Date.now() / 1000 / 30) + offset;
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', base32(secret)).update(message).digest();
  const at = (mac[mac.length - 1] ?? 0) & 0xf;
  return ((mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000).toString().padStart(6, '0');
}

/** Waits out a step's last seconds, so a code computed now still holds when it arrives. */
async function awayFromAStepEdge() {
  const into = (Date.now() / 1000) % 30;
  if (into > 25) await new Promise((done) => setTimeout(done, (31 - into) * 1000));
}

async function newPerson(request: Parameters<typeof restAs>[0], tag: string): Promise<Account> {
  const rest = await restAs(request, admin);
  const login = `mfa-${tag}-${Date.now().toString(36)}`;
  const password = 'two-steps-password-1';
  await rest.post('/api/user/create-user', {
    name: 'Мария',
    surname: 'Двухэтапная',
    login,
    password,
    status: { id: 1 },
  });
  return { login, password };
}

test('a person connects an authenticator and then signs in with its code', async ({
  page,
  request,
  saveScreenshot,
}) => {
  const person = await newPerson(request, 'enrol');
  await signIn(page, person);
  await page.goto('/cabinet');
  await page.getByRole('button', { name: 'Подключить приложение' }).click();
  await expect(page.getByRole('img', { name: 'QR-код для приложения-аутентификатора' })).toBeVisible();
  const secret = await page.getByLabel('Ключ для ручного ввода').inputValue();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await saveScreenshot('mfa-enrol');

  await awayFromAStepEdge();
  await page.getByLabel('Код из приложения:').fill(totp(secret));
  await page.getByRole('button', { name: 'Подтвердить' }).click();
  const codes = page.getByTestId('recovery-codes').getByRole('listitem');
  await expect(codes).toHaveCount(10);
  await saveScreenshot('mfa-recovery-codes');
  await page.getByRole('button', { name: 'Я сохранил коды' }).click();
  await expect(page.getByText('Двухэтапный вход включён.')).toBeVisible();

  await signOut(page);
  await page.getByLabel('Введите логин:').fill(person.login);
  await page.getByLabel('Введите пароль:').fill(person.password);
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page).toHaveURL(/\/login\/code$/);
  const field = page.getByLabel('Код из приложения:');
  await expect(field).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(field).toHaveAttribute('inputmode', 'numeric');
  await field.fill('000000');
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Неверный код' })).toBeVisible();
  await awayFromAStepEdge();
  // The confirming code took this step: the next one signs in.
  await field.fill(totp(secret, 1));
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page).toHaveURL(/\/home$/);
});

test('on a phone, a recovery code signs in when the app is not at hand', async ({
  page,
  request,
  saveScreenshot,
}) => {
  const person = await newPerson(request, 'phone');
  const rest = await restAs(request, person);
  const { secret } = await rest.post<{ secret: string }>('/api/user/mfa/enrol', {});
  await awayFromAStepEdge();
  const { recoveryCodes } = await rest.post<{ recoveryCodes: string[] }>('/api/user/mfa/confirm', {
    code: totp(secret),
  });

  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/login');
  await page.getByLabel('Введите логин:').fill(person.login);
  await page.getByLabel('Введите пароль:').fill(person.password);
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page).toHaveURL(/\/login\/code$/);
  await saveScreenshot('mfa-code-phone');
  await page.getByRole('button', { name: 'Использовать код восстановления' }).click();
  await page.getByLabel('Код восстановления:').fill(recoveryCodes[0] ?? '');
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page).toHaveURL(/\/home$/);
});
