import type { EnvironmentModel, MaintenanceEntry } from '@/gen/portal/wiki/v1/wiki_pb';

import { maintenanceState, today, type MaintenanceState } from './maintenance';

/** The units of a model deployed in one department. */
export const unitsIn = (model: EnvironmentModel, departmentId: bigint) =>
  model.environments.filter((unit) => unit.departmentId === departmentId);

const rank = { overdue: 2, due: 1, ok: 0 } as const;

/**
 * The most urgent maintenance state among a model's units in a department (or among all
 * its units when `departmentId` is undefined): the mark of the model in a list.
 */
export function worstState(
  model: EnvironmentModel | undefined,
  entries: readonly MaintenanceEntry[] | undefined,
  departmentId: bigint | undefined,
  onDay: string = today(),
): MaintenanceState {
  if (!model || !entries) return { kind: 'ok' };
  const units = departmentId === undefined ? model.environments : unitsIn(model, departmentId);
  let worst: MaintenanceState = { kind: 'ok' };
  for (const unit of units) {
    const state = maintenanceState(entries, unit.id, onDay);
    const earlier = state.kind !== 'ok' && worst.kind !== 'ok' && state.nextDue < worst.nextDue;
    if (rank[state.kind] > rank[worst.kind] || (rank[state.kind] === rank[worst.kind] && earlier))
      worst = state;
  }
  return worst;
}
