import { createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { renderPage } from '@/testing/render-with-transport';

import { emptyCourse } from '../../utils/form-values';
import { CourseForm } from './course-form';

// Two members of the surgery; Орлов is dismissed (his status blocks sign-in).
const transport = createRouterTransport(({ service }) => {
  service(AuthService, {
    listDepartmentsWithUsers: () => ({
      departments: [
        {
          id: 2n,
          title: 'Хирургическое отделение',
          users: [
            { id: 7n, surname: 'Орлов', name: 'Сергей', lastName: 'Петрович' },
            { id: 2n, surname: 'Смирнова', name: 'Ольга', lastName: 'Викторовна' },
          ],
        },
      ],
    }),
    resolveStaff: ({ userIds }) => ({
      people: userIds.map((userId) => ({ userId, blocked: userId === 7n })),
    }),
  });
  service(EducationService, { listArticles: () => ({ articles: [] }) });
});

function renderForm(userIds: bigint[]) {
  const submitted: bigint[][] = [];
  renderPage(
    <>
      <CourseForm
        id="course"
        initial={{
          ...emptyCourse,
          title: 'СЛР',
          description: 'Ежегодно',
          dateDeadline: '2099-01-31',
          userIds,
        }}
        disabled={false}
        onSubmit={(values) => submitted.push(values.userIds)}
      />
      <button type="submit" form="course">
        Сохранить
      </button>
    </>,
    { transport, pattern: '/', path: '/' },
  );
  return submitted;
}

const picker = () => screen.getByRole('combobox', { name: 'Назначенные сотрудники' });

describe('the assignees of a course', () => {
  it('offer no blocked person', async () => {
    renderForm([]);
    await userEvent.click(picker());
    const list = await screen.findByRole('listbox');
    await waitFor(() => expect(within(list).queryByText(/Орлов/)).not.toBeInTheDocument());
    expect(within(list).getByRole('option', { name: 'Смирнова Ольга Викторовна' })).toBeInTheDocument();

    await userEvent.type(picker(), 'Орлов');
    expect(screen.queryByRole('option', { name: /Орлов/ })).not.toBeInTheDocument();
  });

  it('keep a blocked person already assigned, marked, when the course is saved', async () => {
    const submitted = renderForm([7n, 2n]);
    expect(await screen.findByRole('button', { name: 'Орлов Сергей Петрович (заблокирован)' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить' }));
    await waitFor(() => expect(submitted).toEqual([[7n, 2n]]));
  });
});
