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
});
