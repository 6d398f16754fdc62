import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';

import { ClearanceBanner } from './clearance-banner';

const renderBanner = (clearance: Parameters<typeof ClearanceBanner>[0]['clearance']) =>
  render(
    <MemoryRouter>
      <ClearanceBanner clearance={clearance} />
    </MemoryRouter>,
  );

describe('ClearanceBanner', () => {
  it('says the reader is cleared, and until when when the clearance lapses', () => {
    renderBanner({ cleared: true, missingCourses: [] });
    expect(screen.getByRole('alert')).toHaveTextContent('Вы допущены к работе');

    renderBanner({ cleared: true, missingCourses: [], validUntil: new Date(2027, 2, 10, 12) });
    expect(screen.getByText('Вы допущены к работе до 10.03.2027')).toBeInTheDocument();
  });

  it('names each missing course as a link to it', () => {
    renderBanner({
      cleared: false,
      missingCourses: [
        { id: 2n, title: 'Базовая СЛР' },
        { id: 5n, title: 'Работа с аппаратом ИВЛ' },
      ],
    });
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Требуется обучение: Базовая СЛР, Работа с аппаратом ИВЛ',
    );
    expect(screen.getByRole('link', { name: 'Базовая СЛР' })).toHaveAttribute('href', '/courses/2');
    expect(screen.getByRole('link', { name: 'Работа с аппаратом ИВЛ' })).toHaveAttribute(
      'href',
      '/courses/5',
    );
  });
});
