import type { Department } from '@/gen/portal/auth/v1/auth_pb';
import type { Environment, EnvironmentModel, MaintenanceEntry } from '@/gen/portal/wiki/v1/wiki_pb';

import { maintenanceState, today, type MaintenanceState } from './maintenance';

export type DueUnit = {
  model: EnvironmentModel;
  unit: Environment;
  department: Department;
  state: Exclude<MaintenanceState, { kind: 'ok' }>;
};

/**
 * The units in `departments` whose maintenance is overdue or due soon, overdue first and
 * then by date. `logbooks[i]` is the logbook of `models[i]`.
 */
export function dueUnits(
  models: readonly EnvironmentModel[],
  logbooks: readonly (readonly MaintenanceEntry[])[],
  departments: readonly Department[],
  onDay: string = today(),
): DueUnit[] {
  const byId = new Map(departments.map((department) => [department.id, department]));
  const rows: DueUnit[] = [];
  models.forEach((model, index) => {
    const entries = logbooks[index] ?? [];
    for (const unit of model.environments) {
      const department = byId.get(unit.departmentId);
      if (!department) continue;
      const state = maintenanceState(entries, unit.id, onDay);
      if (state.kind !== 'ok') rows.push({ model, unit, department, state });
    }
  });
  const order = { overdue: 0, due: 1 } as const;
  return rows.sort(
    (a, b) => order[a.state.kind] - order[b.state.kind] || a.state.nextDue.localeCompare(b.state.nextDue),
  );
}
