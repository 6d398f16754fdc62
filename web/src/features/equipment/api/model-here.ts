import type { EnvironmentModel } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { isClientError } from '@/lib/errors';
import { Right, useHasRight } from '@/lib/session/rights';

import { useDepartment, useModel } from './equipment-queries';

export type ModelHere =
  | { state: 'loading' }
  | { state: 'found'; model: EnvironmentModel }
  | { state: 'missing'; message: string }
  | { state: 'failed' };

/**
 * A model *in a department*, as the list it is opened from shows it: a department unknown or
 * not the reader's (auth refuses it) is 'Отделение не найдено.'; a model unknown, or with no
 * unit there, 'Модель оборудования не найдена.' (the wiki shows staff a model through its units
 * only; an editor sees every model of an existing department, to add its first unit there).
 * The model's page and its breadcrumb ask the same, so they never disagree.
 */
export function useModelHere(departmentId: bigint | undefined, modelId: bigint | undefined): ModelHere {
  const department = useDepartment(departmentId);
  const query = useModel(modelId);
  const editor = useHasRight(Right.EquipmentEditing) === true;

  if (departmentId === undefined || (department.isError && isClientError(department.error))) {
    return { state: 'missing', message: equipmentStrings.departmentNotFound };
  }
  if (department.isError) return { state: 'failed' };
  const modelMissing = { state: 'missing', message: equipmentStrings.modelNotFound } as const;
  if (modelId === undefined || (query.isError && isClientError(query.error))) return modelMissing;
  if (query.isError) return { state: 'failed' };
  if (department.isPending || query.isPending) return { state: 'loading' };
  const model = query.data.environmentModel;
  if (!model) return modelMissing;
  const deployedHere = editor || model.environments.some((unit) => unit.departmentId === departmentId);
  return deployedHere ? { state: 'found', model } : modelMissing;
}
