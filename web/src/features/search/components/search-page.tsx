import SearchIcon from '@mui/icons-material/Search';
import { Alert, Box, InputAdornment, Paper, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

import { LoadingBar } from '@/components/loading-bar';
import { errorMessage } from '@/lib/errors';
import { strings } from '@/lib/strings';

import { hasWords, useSearch } from '../api/use-search';
import { SearchResults } from './search-results';

/** Every hit of `?q=`, grouped by kind, at most the server's largest page. */
const PAGE_LIMIT = 50;
/** How long typing must pause before the page asks (ms), as the header's box. */
const DEBOUNCE_MS = 250;

export function SearchPage() {
  const [params, setParams] = useSearchParams();
  const query = params.get('q') ?? '';
  return (
    <>
      {/* A phone's header has only a button to this page: the box is here, results below. */}
      <Box sx={{ display: { xs: 'block', sm: 'none' }, mb: 2 }}>
        <PageSearchBox
          initial={query}
          onSettled={(text) => setParams(hasWords(text) ? { q: text.trim() } : {}, { replace: true })}
        />
      </Box>
      <Results query={query} />
    </>
  );
}

/** The page's own box: focused when the page opens to be typed in; `onSettled` as one types. */
function PageSearchBox({ initial, onSettled }: { initial: string; onSettled: (text: string) => void }) {
  const [text, setText] = useState(initial);
  const pause = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(pause.current), []);
  const type = (typed: string) => {
    setText(typed);
    clearTimeout(pause.current);
    pause.current = setTimeout(() => onSettled(typed), DEBOUNCE_MS);
  };
  return (
    <TextField
      fullWidth
      type="search"
      value={text}
      placeholder={strings.search.placeholder}
      autoFocus={!hasWords(initial)}
      onChange={(event) => type(event.target.value)}
      slotProps={{
        htmlInput: { 'aria-label': strings.search.label, enterKeyHint: 'search' },
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

function Results({ query }: { query: string }) {
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
