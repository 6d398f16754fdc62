import { create } from '@bufbuild/protobuf';
import { createRouterTransport } from '@connectrpc/connect';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { EnvironmentModelSchema, EnvironmentSchema } from '@/gen/portal/wiki/v1/wiki_pb';
import { endSession } from '@/lib/session/session';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { UnitsList } from './units-list';

const icu = 1n;
const unit = (id: bigint, departmentId: bigint, inventoryNumber: string, overdue = false) =>
  create(EnvironmentSchema, {
    id,
    environmentModelId: 3n,
    departmentId,
    serialNumber: `SN-${id}`,
    inventoryNumber,
    nextMaintenanceDue: overdue ? '2026-11-01' : '',
    isMaintenanceOverdue: overdue,
  });
const model = create(EnvironmentModelSchema, {
  id: 3n,
  name: 'Монитор пациента',
  environments: [unit(1n, icu, 'ИН-10', true), unit(2n, 2n, 'ИН-5'), unit(3n, icu, 'ИН-9')],
});

function renderList(value = model) {
  const transport = createRouterTransport(() => {});
  renderPage(<UnitsList model={value} departmentId={icu} />, { transport, pattern: '/', path: '/' });
}

describe('UnitsList', () => {
  afterEach(() => endSession());

  it("labels the department's units as links to each unit's own page, the maintenance mark beside each", () => {
    signInAs({ rights: ['EquipmentEditing'] });
    renderList();

    const links = screen.getAllByRole('link', { name: /^Инвентарный номер: / });
    expect(links.map((link) => link.textContent)).toEqual([
      'Инвентарный номер: ИН-9',
      'Инвентарный номер: ИН-10',
    ]);
    expect(links.map((link) => link.getAttribute('href'))).toEqual([
      '/departments/environments/1/environment/3/maintenance-logbook?unit=3',
      '/departments/environments/1/environment/3/maintenance-logbook?unit=1',
    ]);
    for (const link of links) expect(link).not.toHaveAttribute('target');
    const overdue = links[1];
    const item = overdue?.closest('li');
    if (!overdue || !item) throw new Error('no second unit');
    const mark = within(item).getByText(/Обслуживание просрочено/);
    expect(overdue).not.toContainElement(mark);
    expect(screen.getByRole('button', { name: 'Добавить оборудование' })).toBeVisible();
  });

  it('shows the empty text, and no add button to a learner', () => {
    signInAs({ rights: [] });
    renderList(create(EnvironmentModelSchema, { id: 4n, environments: [unit(5n, 2n, 'ИН-5')] }));

    expect(screen.getByText('Нет доступных окружений.')).toBeVisible();
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Добавить оборудование' })).toBeNull();
  });
});
