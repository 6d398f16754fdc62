import { callRest } from './authorized-fetch';

// The audit log over the gateway's REST (issue 25): it asks all four services and merges
// their records, which no single grpc-web call could. Shared by the admin's «Журнал действий»
// and the history an entity's own page shows (`components/entity-history`).

/** What a record's actor was. */
export type AuditActor = {
  /** `person`, `service-account`, `anonymous` (a refused sign-in), `system`. */
  kind: string;
  userId?: number | null;
  /** The person's full name as auth has it now. */
  name?: string | null;
  clientId: string;
  /** The login a refused sign-in tried. */
  login: string;
};

/** One field's change; a secret's values are `"***"`. */
export type AuditChange = { field: string; old: unknown; new: unknown };

export type AuditRecord = {
  service: string;
  id: number;
  /** RFC 3339. */
  time: string;
  actor: AuditActor;
  address: string;
  requestId: string;
  entity: string;
  entityId?: number | null;
  entityName?: string | null;
  action: string;
  changes: AuditChange[];
  reason: string;
};

export type AuditPage = {
  records: AuditRecord[];
  total: number;
  page: number;
  pageSize: number;
  /** The next page's position (opaque, for `cursor`); none after the last page. */
  nextCursor?: string | null;
  /** Some service could not be asked; `missing` names them. */
  incomplete: boolean;
  missing: string[];
};

/** The journal's filters; '' is any. Days are `YYYY-MM-DD` of the reader's clock. */
export type AuditFilter = {
  entity: string;
  entityId: string;
  userId: string;
  action: string;
  from: string;
  to: string;
};

export const noAuditFilter: AuditFilter = {
  entity: '',
  entityId: '',
  userId: '',
  action: '',
  from: '',
  to: '',
};

/** The query of `filter` (only what is set), with the reader's time zone for its days. */
export function auditQuery(filter: AuditFilter, now: Date): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value !== '') query.set(key, value);
  }
  query.set('utcOffset', String(-now.getTimezoneOffset()));
  return query;
}

/**
 * A page of the journal, newest first: by its number, or, cheaper deep in the journal, the one
 * after the page whose `nextCursor` is `cursor` (its `total` is then the first page's).
 */
export function getAuditRecords(
  filter: AuditFilter,
  page: number | { cursor: string },
  pageSize?: number,
): Promise<AuditPage> {
  const query = auditQuery(filter, new Date());
  if (typeof page === 'number') query.set('page', String(page));
  else query.set('cursor', page.cursor);
  if (pageSize !== undefined) query.set('pageSize', String(pageSize));
  return callRest<AuditPage>(`/api/audit/get-records?${query.toString()}`);
}

/** The CSV export of the journal as filtered. */
export const auditExportPath = (filter: AuditFilter, now: Date) =>
  `/api/audit/export?${auditQuery(filter, now).toString()}`;

/** A changed value as a person reads it: text without quotes, a list joined, none as «—». */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(shownValue).join(', ');
  return JSON.stringify(value);
}
