import { Alert, Paper, Typography } from '@mui/material';
import { useSearchParams } from 'react-router';

import { LoadingBar } from '@/components/loading-bar';
import { errorMessage } from '@/lib/errors';
import { strings } from '@/lib/strings';

import { hasWords, useSearch } from '../api/use-search';
import { SearchResults } from './search-results';

/** Every hit of `?q=`, grouped by kind, at most the server's largest page. */
const PAGE_LIMIT = 50;

export function SearchPage() {
  const [params] = useSearchParams();
  const query = params.get('q') ?? '';
  const search = useSearch(query, PAGE_LIMIT);

  if (!hasWords(query)) return <Typography>{strings.search.typeSomething}</Typography>;
  if (search.isPending) return <LoadingBar />;
  if (search.isError) return <Alert severity="error">{errorMessage(search.error)}</Alert>;
  return (
    <>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {strings.search.page}: «{query}»
      </Typography>
      {search.data.length === 0 ? (
        <Typography>{strings.search.nothing}</Typography>
      ) : (
        <Paper variant="outlined">
          <SearchResults hits={search.data} />
        </Paper>
      )}
    </>
  );
}
