import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

import { ClearanceBanner, type ClearanceView, type Enroll } from './clearance-banner';

function renderBanner(clearance: ClearanceView, enroll: Enroll = () => Promise.resolve()) {
  const router = createMemoryRouter(
    [
      { path: '/', element: <ClearanceBanner clearance={clearance} enroll={enroll} /> },
      { path: '/courses/:courseId', element: <p>Страница курса</p> },
    ],
    { initialEntries: ['/'] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

describe('ClearanceBanner', () => {
  it('says the reader is cleared, and until when when the clearance lapses', () => {
    renderBanner({ cleared: true, missingCourses: [] });
    expect(screen.getByRole('alert')).toHaveTextContent('Вы допущены к работе');

    renderBanner({ cleared: true, missingCourses: [], validUntil: new Date(2027, 2, 10, 12) });
    expect(screen.getByText('Вы допущены к работе до 10.03.2027')).toBeInTheDocument();
  });

  it('says plainly the reader is not cleared, and each course to take makes it theirs and opens it', async () => {
    const enroll = vi.fn<Enroll>(() => Promise.resolve());
    const router = renderBanner(
      {
        cleared: false,
        missingCourses: [
          { id: 2n, title: 'Базовая СЛР' },
          { id: 5, title: 'Работа с аппаратом ИВЛ' },
        ],
      },
      enroll,
    );
    const banner = screen.getByRole('alert', { name: 'Допуск к работе с оборудованием' });
    expect(banner).toHaveTextContent('Вы не допущены к работе с этим аппаратом');
    expect(banner).toHaveTextContent('Чтобы получить допуск, пройдите обучение:');
    expect(banner).toHaveTextContent('Базовая СЛР');
    await userEvent.click(screen.getByRole('button', { name: 'Пройти обучение: Работа с аппаратом ИВЛ' }));
    expect(enroll).toHaveBeenCalledWith(5n);
    expect(await screen.findByText('Страница курса')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/courses/5');
  });

  it('stays with the reason when the course cannot be taken', async () => {
    const refused = Object.assign(new Error('refused'), {});
    renderBanner({ cleared: false, missingCourses: [{ id: 2n, title: 'Базовая СЛР' }] }, () =>
      Promise.reject(refused),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Пройти обучение: Базовая СЛР' }));
    expect(await screen.findByText('Произошла ошибка при загрузке данных')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Пройти обучение: Базовая СЛР' })).toBeEnabled();
  });
});
