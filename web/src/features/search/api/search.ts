import { callRest } from '@/lib/authorized-fetch';

/** The kinds `/api/search` answers, in the order their groups are shown. */
export const searchKinds = [
  'environment-model',
  'environment',
  'document',
  'course',
  'article',
  'test',
  'user',
  'department',
] as const;

export type SearchKind = (typeof searchKinds)[number];

/** One hit: `snippet` is HTML-escaped text whose matching words are in `<mark>`. */
export type SearchHit = {
  kind: SearchKind;
  id: number;
  title: string;
  snippet: string;
  url: string;
};

/** The hits the caller may open, best first (the services check, not the page). */
export function searchPortal(query: string, limit?: number): Promise<SearchHit[]> {
  const params = new URLSearchParams({ q: query });
  if (limit !== undefined) params.set('limit', String(limit));
  return callRest<SearchHit[]>(`/api/search?${params.toString()}`);
}
