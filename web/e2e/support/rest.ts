// The portal's REST API (spec §7) from a test, to set up data faster than through the pages.
import type { APIRequestContext } from '@playwright/test';

import type { Account } from './accounts';

type Envelope = { success: boolean; data: unknown; errorMessage: string };

export type Rest = {
  get: <T>(path: string) => Promise<T>;
  post: <T>(path: string, body: unknown) => Promise<T>;
};

async function data<T>(path: string, response: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  const envelope = (await response.json()) as Envelope;
  if (!response.ok() || !envelope.success) {
    throw new Error(`${path}: ${response.status()} ${envelope.errorMessage}`);
  }
  return envelope.data as T;
}

/** Signs in over REST and calls the API with that person's bearer token. */
export async function restAs(request: APIRequestContext, { login, password }: Account): Promise<Rest> {
  const session = await data<{ accessToken: string }>(
    'login',
    await request.post('/api/auth/login', { data: { login, password } }),
  );
  const headers = { authorization: `Bearer ${session.accessToken}` };
  return {
    get: async (path) => data(path, await request.get(path, { headers })),
    post: async (path, body) => data(path, await request.post(path, { headers, data: body })),
  };
}

type Id = { id: number };

/** One of everything a person reads, each named by `name(what)`: assigned to a new person. */
export async function seedWorld(
  admin: Rest,
  name: (what: string) => string,
  login: string,
  password: string,
) {
  const department = await admin.post<Id>('/api/department/create', { title: name('Отделение'), users: [] });
  const statuses = await admin.get<{ id: number; name: string }[]>('/api/user/get-all-statuses');
  const working = statuses.find((status) => status.name === 'Работает') ?? statuses[0];
  const user = await admin.post<Id>('/api/user/create-user', {
    name: name('Имя'),
    surname: name('Фамилия'),
    lastName: name('Отчество'),
    login,
    password,
    email: `${login}@hospital.example`,
    status: { id: working?.id },
    departments: [department.id],
    positions: [],
    rights: [],
  });
  const test = await admin.post<Id>('/api/test/create-test-with-question-and-answers', {
    title: name('Тест'),
    description: name('Описание теста'),
    totalPointsRequired: 1,
    numberOfQuestions: 1,
    numberOfTries: 3,
    question: [
      {
        title: name('Вопрос'),
        answer: [
          { title: name('Верный ответ'), isCorrect: true },
          { title: name('Неверный ответ'), isCorrect: false },
        ],
      },
    ],
  });
  const article = await admin.post<Id>('/api/course/create-article', {
    title: name('Статья'),
    description: name('Описание статьи'),
    content: `<h2>${name('Заголовок')}</h2><p>${name('Текст')}</p>`,
    dateDeadLine: '2099-01-31',
    idTest: test.id,
  });
  const course = await admin.post<Id>('/api/course/create-course-with-user-and-articles', {
    title: name('Курс'),
    description: name('Описание курса'),
    dateDeadline: '2099-01-31',
    userIds: [user.id],
    articleIds: [article.id],
  });
  const model = await admin.post<Id>('/api/environment-model/create', {
    name: name('Модель'),
    brandName: name('Марка'),
    description: name('Описание модели'),
    shortInstruction: `<p>${name('Инструкция')}</p>`,
  });
  await admin.post('/api/environment/create', {
    environmentModelId: model.id,
    departmentDeployment: department.id,
    serialNumber: `SN-${login}`,
    inventoryNumber: `ИН-${login}`,
  });
  return {
    department: department.id,
    user: user.id,
    test: test.id,
    article: article.id,
    course: course.id,
    model: model.id,
  };
}
