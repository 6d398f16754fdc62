import { nurse } from '../support/accounts';
import { assignFreshTest } from '../support/education';
import { signIn, signOut } from './session';
import { expect, test } from './test';

// Issue 19's form points: typed work is not lost, and forms say what is wrong where it is.

test('a reload during a test keeps the chosen answers of that attempt, until it is completed', async ({
  page,
  request,
}) => {
  const fresh = await assignFreshTest(request);
  await signIn(page, nurse);
  await page.goto('/my-tests');
  await page
    .getByRole('article', { name: fresh.test })
    .getByRole('link', { name: 'Перейти к тесту' })
    .click();
  await page.getByRole('button', { name: 'Начать тест' }).click();
  const groups = page.getByRole('radiogroup');
  await expect(groups).toHaveCount(2);
  await groups.first().getByRole('radio', { name: 'Верно', exact: true }).check();
  await expect(page.getByText('Отвечено на 1 из 2')).toBeVisible();

  // The reload keeps the attempt (no try spent) and, now, its answer.
  await page.reload();
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await expect(groups.first().getByRole('radio', { name: 'Верно', exact: true })).toBeChecked();
  await expect(groups.nth(1).getByRole('radio', { checked: true })).toHaveCount(0);
  await expect(page.getByText('Отвечено на 1 из 2')).toBeVisible();

  await groups.nth(1).getByRole('radio', { name: 'Верно', exact: true }).check();
  await page.getByRole('button', { name: 'Завершить тест' }).click();
  const result = page.getByRole('dialog', { name: 'Результаты теста' });
  await expect(result.getByText('Количество набранных очков: 2 из 2')).toBeVisible();
  await result.getByRole('button', { name: 'Закрыть' }).click();

  // The next try is a new attempt: nothing of the last one is chosen in it.
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await expect(groups).toHaveCount(2);
  await expect(page.getByRole('radio', { checked: true })).toHaveCount(0);
  await groups.first().getByRole('radio', { name: 'Неверно', exact: true }).check();

  // Signing out leaves no one's answers behind in the tab.
  const drafts = () =>
    page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('portal.draft.')));
  expect(await drafts()).toHaveLength(1);
  await signOut(page);
  expect(await drafts()).toEqual([]);
});
