import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';

import type { SearchHit } from '../api/search';
import { SearchResults } from './search-results';

const hits: SearchHit[] = [
  {
    kind: 'course',
    id: 3,
    title: 'Гигиена рук',
    snippet: 'Перед &lt;script&gt;alert(1)&lt;/script&gt; <mark>обработкой</mark> рук',
    url: '/courses/3',
  },
  {
    kind: 'environment-model',
    id: 1,
    title: 'Монитор пациента',
    snippet: '<mark>Монитор</mark> пациента',
    url: '/departments/environments/1/environment/1',
  },
];

describe('SearchResults', () => {
  it('groups hits under Russian headings and links each to its page', () => {
    render(
      <MemoryRouter>
        <SearchResults hits={hits} />
      </MemoryRouter>,
    );
    const equipment = screen.getByRole('listitem', { name: 'Оборудование и инструкции' });
    expect(within(equipment).getByRole('link', { name: /Монитор пациента/ })).toHaveAttribute(
      'href',
      '/departments/environments/1/environment/1',
    );
    const courses = screen.getByRole('listitem', { name: 'Курсы' });
    expect(within(courses).getByRole('link', { name: /Гигиена рук/ })).toHaveAttribute('href', '/courses/3');
  });

  it('renders a snippet as text: marked words in <mark>, escaped markup as characters', () => {
    const { container } = render(
      <MemoryRouter>
        <SearchResults hits={hits} />
      </MemoryRouter>,
    );
    expect(container.querySelector('script')).toBeNull();
    expect(screen.getByText(/Перед <script>alert\(1\)<\/script>/)).toBeInTheDocument();
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual([
      'Монитор',
      'обработкой',
    ]);
  });
});
