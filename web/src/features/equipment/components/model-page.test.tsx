import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createRouterTransport } from '@connectrpc/connect';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EnvironmentModelSchema, EnvironmentSchema, WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { endSession } from '@/lib/session/session';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { ModelPage } from './model-page';

const icu = 1n;
const surgery = 2n;
const cardiology = 3n;
/** A monitor with one unit, in the ICU. */
const monitor = create(EnvironmentModelSchema, {
  id: 7n,
  name: 'Монитор пациента',
  brandName: 'Mindray',
  // Clearance to operate it needs one course (the banner shows only for such a model).
  requiredCourseIds: [4n],
  environments: [
    create(EnvironmentSchema, { id: 1n, environmentModelId: 7n, departmentId: icu, inventoryNumber: 'ИН-1' }),
  ],
});

/**
 * Auth knows the ICU, surgery and cardiology and lets the caller read `readable` of them; the
 * wiki shows the monitor.
 */
function renderModel(departmentId: string, readable: bigint[]) {
  const titles = new Map([
    [icu, 'Реанимация'],
    [surgery, 'Хирургия'],
    [cardiology, 'Кардиология'],
  ]);
  const transport = createRouterTransport(({ service }) => {
    service(AuthService, {
      getDepartment: ({ departmentId: id }) => {
        const title = titles.get(id);
        if (title === undefined) throw new ConnectError('Отделение не найдено', Code.NotFound);
        if (!readable.includes(id))
          throw new ConnectError('У вас нет доступа к данному ресурсу', Code.PermissionDenied);
        return { department: { id, title } };
      },
    });
    service(WikiService, {
      getEnvironmentModel: () => ({ environmentModel: monitor }),
      getClearance: () => ({ cleared: false, missingCourses: [{ id: 2n, title: 'Базовая СЛР' }] }),
    });
  });
  renderPage(<ModelPage />, {
    transport,
    pattern: '/departments/environments/:departmentId/environment/:id',
    path: `/departments/environments/${departmentId}/environment/7`,
  });
}

const heading = () => screen.queryByRole('heading', { name: 'Монитор пациента' });

describe('ModelPage', () => {
  afterEach(() => endSession());

  it("shows a nurse the model in her department where it stands, with that department's unit", async () => {
    signInAs({ departments: [1, 2] });
    renderModel('1', [icu, surgery]);

    expect(await screen.findByRole('heading', { name: 'Монитор пациента' })).toBeVisible();
    expect(screen.getByRole('link', { name: 'Инвентарный номер: ИН-1' })).toBeVisible();
    expect(await screen.findByText('Вы не допущены к работе с этим аппаратом')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Пройти обучение: Базовая СЛР' })).toBeVisible();
  });

  it('says the model is not found in her department where it has no unit', async () => {
    signInAs({ departments: [1, 2] });
    renderModel('2', [icu, surgery]);

    expect(await screen.findByText('Модель оборудования не найдена.')).toBeVisible();
    expect(heading()).toBeNull();
  });

  it('says the department is not found when it is not hers, and shows nothing of the model', async () => {
    signInAs({ departments: [1, 2] });
    renderModel('3', [icu, surgery]);

    expect(await screen.findByText('Отделение не найдено.')).toBeVisible();
    expect(heading()).toBeNull();
    expect(screen.queryByText('Модель оборудования не найдена.')).toBeNull();
  });

  it('says the department is not found to an editor when it does not exist', async () => {
    signInAs({ rights: ['EquipmentEditing'], departments: [] });
    renderModel('999', [icu, surgery, cardiology]);

    expect(await screen.findByText('Отделение не найдено.')).toBeVisible();
    expect(heading()).toBeNull();
  });

  it('shows an editor the model in any existing department, to add its first unit there', async () => {
    signInAs({ rights: ['EquipmentEditing'], departments: [] });
    renderModel('2', [icu, surgery, cardiology]);

    expect(await screen.findByRole('heading', { name: 'Монитор пациента' })).toBeVisible();
    expect(screen.getByText('Нет доступных окружений.')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Добавить оборудование' })).toBeVisible();
  });
});
