import type { APIRequestContext, Page } from '@playwright/test';

import { admin, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// The demo nurse is user 2 on a fresh database (services/education/src/demo.rs).
const nurseId = 2;

type Envelope<T> = { success: boolean; data: T; errorMessage: string | null };

async function call<T>(
  request: APIRequestContext,
  path: string,
  token: string | undefined,
  body: unknown,
): Promise<T> {
  const response = await request.post(path, {
    data: body,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const envelope = (await response.json()) as Envelope<T>;
  expect(envelope.success, `${path}: ${envelope.errorMessage}`).toBe(true);
  return envelope.data;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * A fresh course of one article with a test (2 questions, both drawn, 2 points to pass,
 * 2 tries) assigned to the nurse through the REST API: each run has its own tries. The
 * article was due yesterday, so the test starts overdue.
 */
async function assignFreshTest(request: APIRequestContext) {
  const suffix = Date.now().toString(36);
  const { accessToken } = await call<{ accessToken: string }>(request, '/api/auth/login', undefined, admin);
  const question = (title: string) => ({
    title,
    answer: [
      { title: 'Неверно', isCorrect: false },
      { title: 'Верно', isCorrect: true },
    ],
  });
  const test = await call<{ id: number }>(
    request,
    '/api/test/create-test-with-question-and-answers',
    accessToken,
    {
      title: `Тест по асептике ${suffix}`,
      description: 'Проверка знаний после изучения статьи',
      totalPointsRequired: 2,
      numberOfQuestions: 2,
      numberOfTries: 2,
      question: [question('Когда меняют перчатки?'), question('Чем обрабатывают кожу перед инъекцией?')],
    },
  );
  const article = await call<{ id: number }>(request, '/api/course/create-article', accessToken, {
    title: `Асептика при инъекциях ${suffix}`,
    description: 'Правила асептики',
    content: '<h2>Правила асептики</h2><p>Перед инъекцией медсестра обрабатывает руки.</p>',
    dateDeadLine: day(-1),
    idTest: test.id,
  });
  await call(request, '/api/course/create-course-with-user-and-articles', accessToken, {
    title: `Инфекционная безопасность ${suffix}`,
    description: 'Курс для процедурных медсестёр',
    dateDeadline: day(30),
    userIds: [nurseId],
    articleIds: [article.id],
  });
  return {
    course: `Инфекционная безопасность ${suffix}`,
    article: `Асептика при инъекциях ${suffix}`,
    test: `Тест по асептике ${suffix}`,
  };
}

/** Answers every drawn question, right or wrong. */
async function answerAll(page: Page, right: boolean) {
  const groups = page.getByRole('radiogroup');
  await expect(groups).toHaveCount(2);
  for (const group of await groups.all()) {
    await group.getByRole('radio', { name: right ? 'Верно' : 'Неверно', exact: true }).check();
  }
}

const triesLeft = (page: Page) => page.locator('dt', { hasText: 'Осталось попыток' }).locator('+ dd');

test('a learner goes from the course list to a test, passes it, fails it and runs out of tries', async ({
  page,
  request,
  saveScreenshot,
}) => {
  const fresh = await assignFreshTest(request);
  await signIn(page, nurse);

  await page.getByRole('link', { name: 'Мои тесты' }).click();
  const myTest = page.getByRole('article').filter({ hasText: fresh.test });
  await expect(myTest.getByText('Просрочен')).toBeVisible();
  await expect(myTest.getByText('Осталось попыток: 2 из 2')).toBeVisible();

  await page.goto('/home');
  await page.getByRole('link', { name: 'Обучение Курсы, статьи и тесты' }).click();
  await expect(page).toHaveURL(/\/courses$/);
  await expect(page.getByRole('heading', { name: 'Список курсов' })).toBeVisible();
  await saveScreenshot('learning-courses');
  await page.getByRole('link', { name: fresh.course }).click();
  await page.getByRole('link', { name: new RegExp(fresh.article) }).click();

  await expect(page.getByRole('heading', { name: 'Правила асептики' })).toBeVisible();
  await expect(page.getByText('Перед инъекцией медсестра обрабатывает руки.')).toBeVisible();
  const crumbs = page.getByRole('navigation', { name: 'Навигационная цепочка' });
  for (const step of ['Список курсов', fresh.course, fresh.article]) await expect(crumbs).toContainText(step);
  await saveScreenshot('learning-article');
  await page.getByRole('link', { name: 'Пройти тест по теме' }).click();

  await expect(page.getByRole('heading', { name: fresh.test })).toBeVisible();
  await expect(crumbs.getByText(fresh.test)).toBeVisible();
  await expect(triesLeft(page)).toHaveText('2');
  await expect(page.getByText('Вы ещё не проходили этот тест.')).toBeVisible();

  // First try: every answer right.
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await answerAll(page, true);
  await saveScreenshot('learning-test-started');
  await page.getByRole('button', { name: 'Завершить тест' }).click();
  let dialog = page.getByRole('dialog', { name: 'Результаты теста' });
  await expect(dialog.getByText('Тест успешно пройден!')).toBeVisible();
  await expect(dialog.getByText('Количество набранных очков: 2 из 2')).toBeVisible();
  await saveScreenshot('learning-result');
  await dialog.getByRole('button', { name: 'Закрыть' }).click();

  const history = page.getByRole('table', { name: 'Предыдущие попытки' });
  await expect(history.getByRole('row')).toHaveCount(2);
  await expect(history.getByText('Пройден', { exact: true })).toBeVisible();
  await expect(triesLeft(page)).toHaveText('1');

  // Second try: every answer wrong, the last try.
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await answerAll(page, false);
  await page.getByRole('button', { name: 'Завершить тест' }).click();
  dialog = page.getByRole('dialog', { name: 'Результаты теста' });
  await expect(dialog.getByText('Тест не пройден!')).toBeVisible();
  await expect(dialog.getByText('Количество набранных очков: 0 из 2')).toBeVisible();
  await dialog.getByRole('button', { name: 'Закрыть' }).click();

  await expect(page.getByText('Вы исчерпали все попытки для прохождения теста')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Начать тест' })).toHaveCount(0);
  await expect(history.getByRole('row')).toHaveCount(3);
  await expect(triesLeft(page)).toHaveText('0');
  await saveScreenshot('learning-exhausted');

  // The reload of the page keeps it so: the tries are spent on the server.
  await page.reload();
  await expect(page.getByText('Вы исчерпали все попытки для прохождения теста')).toBeVisible();

  await page.goto('/my-tests');
  const passed = page.getByRole('article').filter({ hasText: fresh.test });
  await expect(passed.getByText('Пройден', { exact: true })).toBeVisible();
  await expect(passed.getByText('Просрочен')).toHaveCount(0);
  await expect(passed.getByText('Осталось попыток: 0 из 2')).toBeVisible();
  await saveScreenshot('learning-my-tests');

  await page.goto('/my-statistics');
  await expect(page.getByRole('row').filter({ hasText: fresh.test })).toHaveCount(2);
  await saveScreenshot('learning-my-statistics');
});
