import { createRouterTransport } from '@connectrpc/connect';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { renderPage } from '@/testing/render-with-transport';

import { CourseCompliance } from './course-compliance';

const people = [
  { id: 1n, surname: 'Иванова', name: 'Анна', lastName: '' },
  { id: 2n, surname: 'Петрова', name: 'Мария', lastName: '' },
  { id: 3n, surname: 'Сидорова', name: 'Ольга', lastName: '' },
  { id: 4n, surname: 'Кузнецова', name: 'Елена', lastName: '' },
];

const assignee = (userId: bigint, fields: object) => ({
  userId,
  testsTotal: 1,
  testsPassed: 0,
  dateDeadline: '2026-12-31',
  ...fields,
});

describe('CourseCompliance', () => {
  it('tells a valid, an expiring, an expired and a never passed course apart, with each deadline', async () => {
    const transport = createRouterTransport(({ service }) => {
      service(AuthService, {
        listDepartmentsWithUsers: () => ({ departments: [{ id: 9n, title: 'Реанимация', users: people }] }),
      });
      service(EducationService, {
        getCourseCompliance: () => ({
          course: { id: 5n, title: 'СЛР', validityMonths: 12 },
          today: '2026-11-23',
          assignees: [
            assignee(1n, { testsPassed: 1, isComplete: true, validUntil: '2027-10-01' }),
            assignee(2n, { testsPassed: 1, isComplete: true, isExpiring: true, validUntil: '2026-12-05' }),
            assignee(3n, { isExpired: true, validUntil: '2026-11-01', dateDeadline: '2026-12-01' }),
            assignee(4n, {}),
          ],
        }),
      });
    });
    const path = '/admin/education/courses/5';
    renderPage(<CourseCompliance courseId={5n} />, { transport, pattern: path, path });

    const row = async (person: string) =>
      within((await screen.findByRole('cell', { name: person })).closest('tr') ?? document.body);
    expect((await row('Иванова Анна')).getByText('Действует до 01.10.2027')).toBeInTheDocument();
    expect((await row('Петрова Мария')).getByText('Истекает 05.12.2026')).toBeInTheDocument();
    const expired = await row('Сидорова Ольга');
    expect(expired.getByText('Истёк')).toBeInTheDocument();
    expect(expired.getByText('01.12.2026')).toBeInTheDocument();
    expect((await row('Кузнецова Елена')).getByText('Не пройден')).toBeInTheDocument();
    expect(screen.getByText('Истекает в ближайшие 30 дней: 1')).toBeInTheDocument();
    expect(screen.getByText('Срок действия истёк: 1')).toBeInTheDocument();
  });
});
