import { createRouterTransport } from '@connectrpc/connect';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { renderPage } from '@/testing/render-with-transport';

import { MyTestsPage } from './my-tests-page';

const summary = (id: bigint, title: string, left: number) => ({
  id,
  title,
  description: '',
  numberOfQuestions: 5,
  totalPointsRequired: 4,
  numberOfTries: 3,
  numberOfTriesLeft: left,
});

const tests = [
  {
    summary: summary(7n, 'Пройденный', 2),
    courseId: 1n,
    articleId: 2n,
    articleTitle: 'Статья А',
    isPassed: true,
    dateDeadline: '2026-11-01',
  },
  {
    summary: summary(8n, 'Будущий', 3),
    courseId: 1n,
    articleId: 3n,
    articleTitle: 'Статья Б',
    isPassed: false,
    dateDeadline: '2026-12-20',
  },
  {
    summary: summary(9n, 'Просроченный', 1),
    courseId: 4n,
    articleId: 5n,
    articleTitle: 'Статья В',
    isPassed: false,
    dateDeadline: '2026-11-20',
  },
];

describe('MyTestsPage', () => {
  afterEach(() => vi.useRealTimers());

  it('lists assigned tests, overdue ones marked and first, passed ones last', async () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 12, 0), toFake: ['Date'] });
    const transport = createRouterTransport(({ service }) =>
      service(EducationService, { listMyTests: () => ({ tests }) }),
    );
    renderPage(<MyTestsPage />, { transport, pattern: '/my-tests', path: '/my-tests' });

    const links = await screen.findAllByRole('link', { name: 'Перейти к тесту' });
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '/courses/4/article/5/test/9',
      '/courses/1/article/3/test/8',
      '/courses/1/article/2/test/7',
    ]);
    const card = (index: number) => links[index]?.parentElement ?? document.body;
    const overdue = card(0);
    expect(within(overdue).getByText('Просрочен')).toBeInTheDocument();
    expect(within(overdue).getByText('Срок: 2026-11-20 · Осталось попыток: 1 из 3')).toBeInTheDocument();
    expect(within(card(1)).queryByText('Просрочен')).not.toBeInTheDocument();
    const passed = card(2);
    expect(within(passed).getByText('Пройден')).toBeInTheDocument();
    expect(within(passed).queryByText('Просрочен')).not.toBeInTheDocument();
  });

  it('shows a renewable pass as valid until a day, expiring, expired (due again) or not passed', async () => {
    vi.useFakeTimers({ now: new Date(2026, 10, 23, 12, 0), toFake: ['Date'] });
    const renewable = (id: bigint, title: string, pass: object) => ({
      summary: summary(id, title, 3),
      courseId: 1n,
      articleId: id,
      articleTitle: 'Статья',
      isPassed: false,
      dateDeadline: '2027-06-01',
      ...pass,
    });
    const transport = createRouterTransport(({ service }) =>
      service(EducationService, {
        listMyTests: () => ({
          tests: [
            renewable(11n, 'Действующий', { isPassed: true, validUntil: '2027-11-23' }),
            renewable(12n, 'Истекающий', { isPassed: true, validUntil: '2026-12-10', isExpiring: true }),
            renewable(13n, 'Истёкший', {
              validUntil: '2026-11-01',
              isExpired: true,
              dateDeadline: '2026-12-01',
            }),
            renewable(14n, 'Новый', {}),
            renewable(15n, 'Бессрочный', { isPassed: true }),
          ],
        }),
      }),
    );
    renderPage(<MyTestsPage />, { transport, pattern: '/my-tests', path: '/my-tests' });

    const card = async (title: string) => within(await screen.findByRole('article', { name: title }));
    expect((await card('Действующий')).getByText('Действует до 23.11.2027')).toBeInTheDocument();
    expect((await card('Истекающий')).getByText('Истекает 10.12.2026')).toBeInTheDocument();
    const expired = await card('Истёкший');
    expect(expired.getByText('Истёк')).toBeInTheDocument();
    expect(expired.getByText('Срок действия истёк: пройдите тест заново')).toBeInTheDocument();
    expect(expired.getByText('Срок: 2026-12-01 · Осталось попыток: 3 из 3')).toBeInTheDocument();
    expect((await card('Новый')).getByText('Не пройден')).toBeInTheDocument();
    expect((await card('Бессрочный')).getByText('Пройден')).toBeInTheDocument();
  });
});
