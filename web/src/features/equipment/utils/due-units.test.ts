import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';

import { DepartmentSchema } from '@/gen/portal/auth/v1/auth_pb';
import {
  EnvironmentModelSchema,
  EnvironmentSchema,
  MaintenanceEntrySchema,
} from '@/gen/portal/wiki/v1/wiki_pb';

import { worstState } from './department-maintenance';
import { dueUnits } from './due-units';

const unit = (id: number, departmentId: number, inventoryNumber: string) =>
  create(EnvironmentSchema, { id: BigInt(id), departmentId: BigInt(departmentId), inventoryNumber });
const entry = (id: number, environmentId: number, nextDue: string) =>
  create(MaintenanceEntrySchema, {
    id: BigInt(id),
    environmentId: BigInt(environmentId),
    date: '2026-01-01',
    nextDue,
  });

const monitor = create(EnvironmentModelSchema, {
  id: 1n,
  name: 'Монитор пациента',
  environments: [unit(11, 1, 'ИН-1'), unit(12, 2, 'ИН-2'), unit(13, 3, 'ИН-3')],
});
const pump = create(EnvironmentModelSchema, {
  id: 2n,
  name: 'Инфузомат',
  environments: [unit(21, 1, 'ИН-4')],
});
const departments = [
  create(DepartmentSchema, { id: 1n, title: 'Кардиология' }),
  create(DepartmentSchema, { id: 2n, title: 'Реанимация' }),
];
const day = '2026-11-23';

describe('dueUnits', () => {
  it('lists overdue units first, then those due soon, only in the departments given', () => {
    const rows = dueUnits(
      [monitor, pump],
      [
        [entry(1, 11, '2026-12-01'), entry(2, 12, '2026-11-01'), entry(3, 13, '2026-10-01')],
        [entry(4, 21, '2026-11-20')],
      ],
      departments,
      day,
    );
    expect(rows.map((row) => [row.unit.inventoryNumber, row.state.kind, row.department.title])).toEqual([
      ['ИН-2', 'overdue', 'Реанимация'],
      ['ИН-4', 'overdue', 'Кардиология'],
      ['ИН-1', 'due', 'Кардиология'],
    ]);
  });

  it('leaves out units in order', () => {
    expect(dueUnits([pump], [[entry(1, 21, '2027-06-01')]], departments, day)).toEqual([]);
  });
});

describe('worstState', () => {
  it('marks a model by its most urgent unit in the department', () => {
    const entries = [entry(1, 11, '2026-12-01'), entry(2, 12, '2026-11-01')];
    expect(worstState(monitor, entries, 1n, day)).toEqual({ kind: 'due', nextDue: '2026-12-01' });
    expect(worstState(monitor, entries, 2n, day)).toEqual({ kind: 'overdue', nextDue: '2026-11-01' });
    expect(worstState(monitor, entries, undefined, day).kind).toBe('overdue');
    expect(worstState(undefined, entries, 1n, day)).toEqual({ kind: 'ok' });
  });
});
