// Issue 24 point 2: a course valid 12 months. A learner passes it, the pass is dated 400
// days back in the education database (time moved past the validity), and the course is due
// again with fresh tries while the earlier attempt stays in the history.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { request as requests, type Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { restAs, seedWorld } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

const tag = Date.now().toString(36);
const name = (what: string) => `${what} ${tag}`;
const learner = { login: `recert${tag}`, password: `recert-${tag}-password` };

let world: Awaited<ReturnType<typeof seedWorld>>;

test.beforeAll(async () => {
  const request = await requests.newContext({ baseURL: process.env.PORTAL_E2E_URL });
  const rest = await restAs(request, admin);
  world = await seedWorld(rest, name, learner.login, learner.password);
  await rest.post('/api/course/update-course', {
    id: world.course,
    title: name('Курс'),
    description: name('Описание курса'),
    dateDeadline: '2099-01-31',
    userIds: [world.user],
    articleIds: [world.article],
    validityMonths: 12,
  });
  await request.dispose();
});

/** Moves every attempt of the learner `days` into the past, as if taken then. */
function backdateAttempts(userId: number, days: number) {
  const dataDir = process.env.PORTAL_E2E_DATA_DIR;
  if (!dataDir) throw new Error('PORTAL_E2E_DATA_DIR is unset: the global setup exports it');
  const shift = days * 86_400_000;
  // Python's own sqlite3 module: python3 is on every machine, the sqlite3 tool is not.
  execFileSync('python3', [
    '-c',
    [
      'import sqlite3, sys',
      'db = sqlite3.connect(sys.argv[1], timeout=5)',
      'db.execute("UPDATE attempts SET started_at = started_at - ?, completed_at = completed_at - ? WHERE user_id = ?", (int(sys.argv[2]), int(sys.argv[2]), int(sys.argv[3])))',
      'db.commit()',
    ].join('\n'),
    join(dataDir, 'education.db'),
    String(shift),
    String(userId),
  ]);
}

/** `DD.MM.YYYY` of the day `months` from now, as «Мои тесты» writes a validity. */
function monthsFromNow(months: number) {
  const day = new Date();
  day.setMonth(day.getMonth() + months);
  return day.toLocaleDateString('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric' });
}

async function passTheTest(page: Page) {
  await page.goto('/my-tests');
  await page
    .getByRole('article')
    .filter({ hasText: name('Тест') })
    .getByRole('link')
    .click();
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await page.getByRole('radio', { name: name('Верный ответ'), exact: true }).check();
  await page.getByRole('button', { name: 'Завершить тест' }).click();
  const dialog = page.getByRole('dialog', { name: 'Результаты теста' });
  await expect(dialog.getByText('Тест успешно пройден!')).toBeVisible();
  await dialog.getByRole('button', { name: 'Закрыть' }).click();
}

test('a lapsed pass makes the course due again with fresh tries, the earlier attempt kept', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, learner);
  await passTheTest(page);
  await page.goto('/my-tests');
  const card = page.getByRole('article').filter({ hasText: name('Тест') });
  await expect(card.getByText(`Действует до ${monthsFromNow(12)}`)).toBeVisible();
  await expect(card.getByText('Осталось попыток: 2 из 3')).toBeVisible();

  // Thirteen months later.
  backdateAttempts(world.user, 400);
  await page.reload();
  await expect(card.getByText('Истёк', { exact: true })).toBeVisible();
  await expect(card.getByText('Срок действия истёк: пройдите тест заново')).toBeVisible();
  await expect(card.getByText(/Осталось попыток: 3 из 3/)).toBeVisible();
  await saveScreenshot('recertification-due-again');

  await card.getByRole('link', { name: 'Перейти к тесту' }).click();
  await expect(page.locator('dt', { hasText: 'Осталось попыток' }).locator('+ dd')).toHaveText('3');
  const history = page.getByRole('table', { name: 'Предыдущие попытки' });
  await expect(history.getByRole('row')).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Начать тест' })).toBeEnabled();

  await passTheTest(page);
  await expect(history.getByRole('row')).toHaveCount(3);
  await page.goto('/my-tests');
  await expect(card.getByText(`Действует до ${monthsFromNow(12)}`)).toBeVisible();
  await expect(card.getByText('Осталось попыток: 2 из 3')).toBeVisible();
  await saveScreenshot('recertification-renewed');
});
