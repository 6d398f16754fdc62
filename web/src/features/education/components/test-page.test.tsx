import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createRouterTransport } from '@connectrpc/connect';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import {
  type CompleteTestRequest,
  EducationService,
  TestResultSchema,
  type TestResult,
} from '@/gen/portal/education/v1/education_pb';
import { renderPage } from '@/testing/render-with-transport';

import { TestPage } from './test-page';

// Two questions; the right answers are 11 and 21.
const questions = [
  {
    id: 1n,
    title: 'Сколько моментов гигиены рук выделяет ВОЗ?',
    answers: [
      { id: 10n, title: 'Три' },
      { id: 11n, title: 'Пять' },
    ],
  },
  {
    id: 2n,
    title: 'Сколько длится обработка рук?',
    answers: [
      { id: 20n, title: '5 секунд' },
      { id: 21n, title: '20–30 секунд' },
    ],
  },
];

/**
 * An education service holding one test with `tries` tries, scoring as the server does: an
 * attempt not handed in is given back by StartAttempt without a try.
 */
function fakeEducation(tries: number, expiresAt = new Date(2026, 10, 23, 14, 35)) {
  const results: TestResult[] = [];
  const submitted: CompleteTestRequest[] = [];
  let started = 0;
  // The attempt started and not completed: a reload finds it in the summary.
  let open: bigint | undefined;
  const left = () => tries - started;
  const transport = createRouterTransport(({ service }) =>
    service(EducationService, {
      getTestSummary: () => ({
        summary: {
          id: 3n,
          title: 'Гигиена рук',
          description: 'Пять моментов',
          numberOfQuestions: 2,
          totalPointsRequired: 2,
          numberOfTries: tries,
          numberOfTriesLeft: left(),
          attemptInProgress:
            open === undefined
              ? undefined
              : {
                  attemptId: open,
                  startedAt: timestampFromDate(new Date()),
                  expiresAt: timestampFromDate(new Date(Date.now() + 42 * 60_000)),
                },
        },
      }),
      listUserTestResults: () => ({ results }),
      startAttempt: () => {
        if (open === undefined) {
          started += 1;
          open = BigInt(started);
        }
        return {
          attemptId: open,
          questions,
          startedAt: timestampFromDate(new Date()),
          expiresAt: timestampFromDate(expiresAt),
          numberOfTriesLeft: left(),
        };
      },
      completeTest: (request) => {
        submitted.push(request);
        open = undefined;
        const totalPoint = request.questionWithAnswers.filter(
          (a) => a.answerId === a.questionId * 10n + 1n,
        ).length;
        const isPassed = totalPoint >= 2;
        results.push(
          create(TestResultSchema, {
            id: BigInt(results.length + 1),
            test: { id: 3n, title: 'Гигиена рук' },
            totalPoint,
            isPassed,
            totalPointsPossible: 2,
            dateCompletion: timestampFromDate(new Date(2026, 10, 23, 9, 5)),
          }),
        );
        return { totalPoint, isPassed, totalPointsPossible: 2, numberOfTriesLeft: left() };
      },
    }),
  );
  return { transport, submitted, startedCount: () => started };
}

function renderTestPage(tries: number, education = fakeEducation(tries)) {
  renderPage(<TestPage />, {
    transport: education.transport,
    pattern: '/courses/:courseId/article/:articleId/test/:testId',
    path: '/courses/1/article/2/test/3',
  });
  return education;
}

const answer = async (question: string, choice: string) => {
  const group = screen.getByRole('group', { name: new RegExp(question) });
  await userEvent.click(within(group).getByRole('radio', { name: choice }));
};

describe('TestPage', () => {
  it('takes a test from the summary to the result and shows the try in the history', async () => {
    const education = renderTestPage(2);
    expect(await screen.findByRole('heading', { name: 'Гигиена рук' })).toBeInTheDocument();
    expect(screen.getByText('Осталось попыток').nextSibling).toHaveTextContent('2');
    expect(await screen.findByText('Вы ещё не проходили этот тест.')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Начать тест' }));
    expect(
      await screen.findByText('Завершите тест до 14:35: после этого попытка не засчитывается.'),
    ).toBeInTheDocument();
    await answer('Сколько моментов', 'Пять');
    await answer('Сколько длится', '20–30 секунд');
    expect(screen.getByText('Отвечено на 2 из 2')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Завершить тест' }));

    const dialog = await screen.findByRole('dialog', { name: 'Результаты теста' });
    expect(within(dialog).getByText('Тест успешно пройден!')).toBeInTheDocument();
    expect(within(dialog).getByText('Количество набранных очков: 2 из 2')).toBeInTheDocument();
    expect(education.submitted[0]?.attemptId).toBe(1n);
    expect(education.submitted[0]?.questionWithAnswers.map((a) => [a.questionId, a.answerId])).toEqual([
      [1n, 11n],
      [2n, 21n],
    ]);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Закрыть' }));
    const history = await screen.findByRole('table', { name: 'Предыдущие попытки' });
    expect(within(history).getByText('23-11-2026: 09-05')).toBeInTheDocument();
    expect(within(history).getByText('2 из 2')).toBeInTheDocument();
    expect(within(history).getByText('Пройден')).toBeInTheDocument();
    expect(screen.getByText('Осталось попыток').nextSibling).toHaveTextContent('1');
  });

  it('asks before finishing with a question unanswered, and reports a failed test', async () => {
    const education = renderTestPage(1);
    await userEvent.click(await screen.findByRole('button', { name: 'Начать тест' }));
    await answer('Сколько моментов', 'Три');
    await userEvent.click(screen.getByRole('button', { name: 'Завершить тест' }));

    const confirm = await screen.findByRole('dialog', { name: 'Не на все вопросы есть ответ' });
    expect(within(confirm).getByText(/Без ответа: 1\./)).toBeInTheDocument();
    await userEvent.click(within(confirm).getByRole('button', { name: 'Завершить тест' }));

    const dialog = await screen.findByRole('dialog', { name: 'Результаты теста' });
    expect(within(dialog).getByText('Тест не пройден!')).toBeInTheDocument();
    expect(within(dialog).getByText('Количество набранных очков: 0 из 2')).toBeInTheDocument();
    expect(education.submitted[0]?.questionWithAnswers).toHaveLength(1);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Закрыть' }));
    expect(await screen.findByText('Вы исчерпали все попытки для прохождения теста')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Начать тест' })).not.toBeInTheDocument();
    expect(screen.getByText('Не пройден')).toBeInTheDocument();
  });

  it('closes the result dialog with Enter, its button having the focus', async () => {
    renderTestPage(2);
    await userEvent.click(await screen.findByRole('button', { name: 'Начать тест' }));
    await answer('Сколько моментов', 'Пять');
    await answer('Сколько длится', '20–30 секунд');
    await userEvent.click(screen.getByRole('button', { name: 'Завершить тест' }));

    const dialog = await screen.findByRole('dialog', { name: 'Результаты теста' });
    expect(within(dialog).getByRole('button', { name: 'Закрыть' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('after a pass on the last try says so, the spent tries no warning', async () => {
    renderTestPage(1);
    await userEvent.click(await screen.findByRole('button', { name: 'Начать тест' }));
    await answer('Сколько моментов', 'Пять');
    await answer('Сколько длится', '20–30 секунд');
    await userEvent.click(screen.getByRole('button', { name: 'Завершить тест' }));
    const dialog = await screen.findByRole('dialog', { name: 'Результаты теста' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Закрыть' }));

    const passed = await screen.findByRole('alert');
    expect(passed).toHaveClass('MuiAlert-standardSuccess');
    expect(within(passed).getByText('Тест пройден')).toBeInTheDocument();
    // Spec §2's sentence, told as a fact after the pass, not as a warning.
    expect(within(passed).getByText('Вы исчерпали все попытки для прохождения теста')).toBeInTheDocument();
    expect(document.querySelector('.MuiAlert-standardWarning')).toBeNull();
  });

  it('after a reload shows the attempt in progress and takes it up again without a try', async () => {
    const education = fakeEducation(1, new Date(Date.now() + 42 * 60_000));
    renderTestPage(1, education);
    await userEvent.click(await screen.findByRole('button', { name: 'Начать тест' }));
    await answer('Сколько моментов', 'Пять');

    // The page is loaded again, as a reload does: the attempt lives on the server.
    cleanup();
    renderTestPage(1, education);
    expect(await screen.findByRole('button', { name: 'Продолжить тест' })).toBeInTheDocument();
    expect(
      screen.getByText(/Тест начат и не завершён\. Завершите его до \d\d:\d\d \(осталось 4[123] мин\)/),
    ).toBeInTheDocument();
    expect(screen.queryByText('Вы ещё не проходили этот тест.')).not.toBeInTheDocument();
    // Its only try is taken, yet the attempt is still open: no «исчерпали».
    expect(screen.queryByText('Вы исчерпали все попытки для прохождения теста')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Продолжить тест' }));
    const group = await screen.findByRole('group', { name: /Сколько моментов/ });
    expect(within(group).getByRole('radio', { name: 'Пять' })).toBeChecked();
    expect(education.startedCount()).toBe(1);

    await answer('Сколько длится', '20–30 секунд');
    await userEvent.click(screen.getByRole('button', { name: 'Завершить тест' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Закрыть' }));
    expect(await screen.findByText('Тест пройден')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Продолжить тест' })).not.toBeInTheDocument();
  });
});
