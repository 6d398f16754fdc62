import { keepPreviousData, useQuery } from '@tanstack/react-query';

import { searchPortal } from './search';

/** Whether `query` has a letter or digit to look for (the server refuses one without). */
export const hasWords = (query: string) => /[\p{L}\p{N}]/u.test(query);

/** The hits of `query` (none asked while it has no word), the last ones kept while typing. */
export function useSearch(query: string, limit?: number) {
  const q = query.trim();
  return useQuery({
    queryKey: ['search', q, limit],
    queryFn: () => searchPortal(q, limit),
    enabled: hasWords(q),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}
