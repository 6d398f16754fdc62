import { skipToken, useQuery } from '@connectrpc/connect-query';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';

import type { AuditRecord } from './audit';
import { refusalShownByPage } from './errors';
import { fullName } from './person-name';

// The services record links as ids («Статус: 1 → 4», «Отделения: — → 1»); a person reads them
// by name (issue 37). The names come from the lists the portal's pages read anyway, each asked
// for only when a record on the page holds an id of its kind. An id the reader cannot see
// (a course not theirs, a model of another department) or that no longer exists stays a number.

/** What an id of an audit record's field names. */
export type NamedKind =
  | 'status'
  | 'department'
  | 'position'
  | 'person'
  | 'country'
  | 'manufacturer'
  | 'environment-type'
  | 'environment-model'
  | 'course'
  | 'article'
  | 'test';

/** The fields the services record (`Changes` in each store) that hold ids, and of what. */
const namedFields: Record<string, NamedKind> = {
  statusId: 'status',
  departmentIds: 'department',
  departmentId: 'department',
  positionIds: 'position',
  userIds: 'person',
  assignees: 'person',
  userId: 'person',
  ownerId: 'person',
  countryId: 'country',
  manufacturerId: 'manufacturer',
  environmentTypeId: 'environment-type',
  environmentModelId: 'environment-model',
  requiredCourses: 'course',
  articles: 'article',
  articleId: 'article',
  testId: 'test',
};

/** What a field's ids name; undefined for a field of plain values. */
export const namedKindOf = (field: string): NamedKind | undefined => namedFields[field];

/** The name of the thing `id` of `kind` is, when the reader's lists have it. */
export type NameOf = (kind: NamedKind, id: bigint) => string | undefined;

/** The kinds of ids the records' changes hold. */
function kindsIn(records: AuditRecord[]): Set<NamedKind> {
  const kinds = new Set<NamedKind>();
  for (const record of records) {
    for (const change of record.changes) {
      const kind = namedKindOf(change.field);
      if (kind) kinds.add(kind);
    }
  }
  return kinds;
}

const byId = <T extends { id: bigint }>(items: T[] | undefined, name: (item: T) => string) =>
  new Map((items ?? []).map((item) => [item.id, name(item)]));

/** Looks up the names of the ids in `records`' changes (see the module's comment). */
export function useAuditNames(records: AuditRecord[]): NameOf {
  const kinds = kindsIn(records);
  // A refused list (not the reader's to read) only leaves its ids as numbers: no toast.
  const options = { meta: refusalShownByPage };
  const when = (kind: NamedKind) => (kinds.has(kind) ? {} : skipToken);
  const auth = AuthService.method;
  const wiki = WikiService.method;
  const education = EducationService.method;
  const names: Record<NamedKind, Map<bigint, string>> = {
    status: byId(useQuery(auth.listStatuses, when('status'), options).data?.statuses, (s) => s.name),
    department: byId(
      useQuery(auth.listDepartments, when('department'), options).data?.departments,
      (d) => d.title,
    ),
    position: byId(useQuery(auth.listPositions, when('position'), options).data?.positions, (p) => p.title),
    person: byId(useQuery(auth.listUsers, when('person'), options).data?.users, fullName),
    country: byId(useQuery(wiki.listCountries, when('country'), options).data?.countries, (c) => c.name),
    manufacturer: byId(
      useQuery(wiki.listManufacturers, when('manufacturer'), options).data?.manufacturers,
      (m) => m.name,
    ),
    'environment-type': byId(
      useQuery(wiki.listEnvironmentTypes, when('environment-type'), options).data?.environmentTypes,
      (t) => t.name,
    ),
    'environment-model': byId(
      useQuery(wiki.listEnvironmentModels, when('environment-model'), options).data?.environmentModels,
      (m) => m.name,
    ),
    course: byId(useQuery(education.listCourses, when('course'), options).data?.courses, (c) => c.title),
    article: byId(useQuery(education.listArticles, when('article'), options).data?.articles, (a) => a.title),
    test: byId(useQuery(education.listTests, when('test'), options).data?.tests, (t) => t.title),
  };
  return (kind, id) => names[kind].get(id);
}
