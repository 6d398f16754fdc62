import { type APIRequestContext, expect } from '@playwright/test';

import { admin } from './accounts';

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
export async function assignFreshTest(request: APIRequestContext) {
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
