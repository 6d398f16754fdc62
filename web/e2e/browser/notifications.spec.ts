import { nurse, admin } from '../support/accounts';
import { restAs } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

// The demo nurse is user 2 on a fresh database (services/education/src/demo.rs).
const nurseId = 2;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

type Mine = { unread: number };

test('the bell counts a course due tomorrow and opening it marks it read', async ({
  page,
  request,
  saveScreenshot,
}) => {
  const suffix = Date.now().toString(36);
  const asAdmin = await restAs(request, admin);
  const quiz = await asAdmin.post<{ id: number }>('/api/test/create-test-with-question-and-answers', {
    title: `Допуск к ИВЛ ${suffix}`,
    description: 'Проверка перед работой',
    totalPointsRequired: 1,
    numberOfQuestions: 1,
    numberOfTries: 2,
    question: [
      {
        title: 'Что проверяют перед подключением?',
        answer: [
          { title: 'Дыхательный контур', isCorrect: true },
          { title: 'Ничего', isCorrect: false },
        ],
      },
    ],
  });
  const article = await asAdmin.post<{ id: number }>('/api/course/create-article', {
    title: `Подготовка ИВЛ ${suffix}`,
    description: 'Порядок подготовки',
    content: '<p>Проверьте дыхательный контур.</p>',
    dateDeadline: day(1),
    testId: quiz.id,
  });
  const title = `Работа с ИВЛ ${suffix}`;
  const course = await asAdmin.post<{ id: number }>('/api/course/create-course-with-user-and-articles', {
    title,
    description: 'Обязательный курс',
    dateDeadline: day(1),
    userIds: [nurseId],
    articleIds: [article.id],
  });
  const before = (await (await restAs(request, nurse)).get<Mine>('/api/notification/get-mine')).unread;
  expect(before).toBeGreaterThanOrEqual(1);

  await signIn(page, nurse);
  const bell = page.getByRole('button', { name: `Уведомления: новых ${before}` });
  await expect(bell).toBeVisible();
  await bell.click();
  const list = page.getByRole('dialog', { name: 'Уведомления' });
  const item = list.getByRole('link', { name: new RegExp(title) });
  await expect(item).toContainText('срок');
  await saveScreenshot('notifications-bell-open');
  await item.click();

  await expect(page).toHaveURL(new RegExp(`/courses/${course.id}$`));
  const after = before - 1 === 0 ? 'Уведомления: новых нет' : `Уведомления: новых ${before - 1}`;
  await expect(page.getByRole('button', { name: after })).toBeVisible();
  // The mark is the server's: it holds after a reload.
  await page.reload();
  await expect(page.getByRole('button', { name: after })).toBeVisible();
});
