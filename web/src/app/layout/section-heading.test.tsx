import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';

import { renderRoute } from '@/testing/render-route';
import { signInAs } from '@/testing/session';

import { sectionTitle } from './section-title';

describe('section heading', () => {
  beforeEach(() => {
    signInAs();
  });

  it.each([
    ['/courses', 'Раздел 3. Обучение и развитие'],
    ['/courses/7/article/3/test/5', 'Раздел 3. Обучение и развитие'],
    ['/my-tests', 'Раздел 3. Обучение и развитие'],
    ['/my-statistics', 'Раздел 3. Обучение и развитие'],
    ['/departments', 'Раздел 7. Медицинское оборудование'],
    ['/departments/environments/2/environment/9/short-instruction', 'Раздел 7. Медицинское оборудование'],
    ['/home', 'Неизвестный раздел'],
    ['/admin/statistics', 'Неизвестный раздел'],
    ['/coursesque', 'Неизвестный раздел'],
    ['/search', 'Поиск по порталу'],
  ])('names the section of %s', (pathname, title) => {
    expect(sectionTitle(pathname)).toBe(title);
  });

  it('shows the education section on a course route', async () => {
    await renderRoute('/courses/1/article/2');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Раздел 3. Обучение и развитие');
  });

  it('shows the equipment section on an equipment route', async () => {
    await renderRoute('/departments/environments/1/environment/4/documentation');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Раздел 7. Медицинское оборудование');
  });

  it('shows an unknown section elsewhere', async () => {
    await renderRoute('/home');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Неизвестный раздел');
  });
});
