import { paths } from '@/config/paths';

type Id = bigint | number;

/** A model's page in a department (spec §2: environments/{departmentId}/environment/{id}). */
export const modelPage = (departmentId: Id, modelId: Id) =>
  `${paths.departments}/environments/${String(departmentId)}/environment/${String(modelId)}`;

/**
 * A unit's own page, what its inventory number opens (as an asset tag does): its model's
 * maintenance logbook in its department with the unit chosen, its standing and its entries.
 */
export const unitPage = (departmentId: Id, modelId: Id, unitId: Id) =>
  `${modelPage(departmentId, modelId)}/maintenance-logbook?unit=${String(unitId)}`;
