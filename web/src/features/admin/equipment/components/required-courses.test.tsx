import { create } from '@bufbuild/protobuf';
import { createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { EnvironmentModelSchema } from '@/gen/portal/wiki/v1/wiki_pb';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { RequiredCourses } from './required-courses';

describe('assigning the courses a model requires to its departments', () => {
  it('leaves out the blocked members', async () => {
    const assigned: bigint[][] = [];
    const transport = createRouterTransport(({ service }) => {
      service(AuthService, {
        getDepartmentWithUsers: () => ({
          department: {
            id: 2n,
            title: 'Хирургическое отделение',
            users: [
              { id: 7n, surname: 'Орлов', name: 'Сергей' },
              { id: 2n, surname: 'Смирнова', name: 'Ольга' },
            ],
          },
        }),
        resolveStaff: ({ userIds }) => ({
          people: userIds.map((userId) => ({ userId, blocked: userId === 7n })),
        }),
      });
      service(EducationService, {
        listCourses: () => ({ courses: [{ id: 5n, title: 'Базовая СЛР' }] }),
        assignCourse: ({ userIds }) => {
          assigned.push(userIds);
          return {};
        },
      });
    });
    signInAs({ rights: ['EducationManagement', 'EquipmentEditing'] });
    const model = create(EnvironmentModelSchema, {
      id: 1n,
      name: 'Аппарат ИВЛ',
      requiredCourseIds: [5n],
      environments: [{ id: 1n, departmentId: 2n, environmentModelId: 1n }],
    });
    renderPage(<RequiredCourses model={model} />, { transport, pattern: '/', path: '/' });

    await userEvent.click(await screen.findByRole('button', { name: 'Назначить обучение отделениям' }));
    await waitFor(() => expect(assigned).toEqual([[2n]]));
    expect(await screen.findByText('Обучение назначено сотрудникам отделений: 1')).toBeInTheDocument();
  });
});
