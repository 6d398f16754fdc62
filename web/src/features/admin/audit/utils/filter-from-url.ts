import { noAuditFilter, type AuditFilter } from '@/lib/audit';

/** The journal's filters a link gives (an entity page's «Весь журнал»), the rest unset. */
export function filterFromUrl(search: URLSearchParams): AuditFilter {
  const filter = { ...noAuditFilter };
  for (const key of Object.keys(filter) as (keyof AuditFilter)[]) {
    filter[key] = search.get(key) ?? '';
  }
  return filter;
}

/** A period whose end comes before its start (days `YYYY-MM-DD` compare as text). */
export const periodReversed = (filter: AuditFilter) =>
  filter.from !== '' && filter.to !== '' && filter.to < filter.from;
