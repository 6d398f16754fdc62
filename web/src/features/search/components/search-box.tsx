import SearchIcon from '@mui/icons-material/Search';
import { ClickAwayListener, InputAdornment, Paper, Popper, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { createSearchParams, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { hasWords, useSearch } from '../api/use-search';
import { useDebounced } from '../lib/use-debounced';
import { SearchResults } from './search-results';

/** How long typing must pause before the box asks (ms). */
const DEBOUNCE_MS = 250;
/** Hits the header's list shows; the page shows more. */
const HEADER_LIMIT = 8;

/** The header's search: results as one types, grouped; Enter opens the search page. */
export function SearchBox() {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  // State, not a ref: the list is placed (and sized) by it while rendering.
  const [anchor, setAnchor] = useState<HTMLDivElement | null>(null);
  const navigate = useNavigate();
  const query = useDebounced(text, DEBOUNCE_MS);
  const search = useSearch(query, HEADER_LIMIT);
  const close = () => setOpen(false);
  const showAll = () => {
    if (!hasWords(text)) return;
    close();
    void navigate({ pathname: paths.search, search: createSearchParams({ q: text.trim() }).toString() });
  };
  const hits = search.data ?? [];
  const asked = hasWords(query);

  return (
    <ClickAwayListener onClickAway={close}>
      <div ref={setAnchor} style={{ flexGrow: 1, maxWidth: 520, minWidth: 0 }}>
        <TextField
          size="small"
          fullWidth
          type="search"
          value={text}
          placeholder={strings.search.placeholder}
          onChange={(event) => {
            setText(event.target.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') showAll();
            if (event.key === 'Escape') close();
          }}
          slotProps={{
            htmlInput: { 'aria-label': strings.search.label },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
        <Popper
          open={open && asked}
          anchorEl={anchor}
          placement="bottom-start"
          sx={{ zIndex: (theme) => theme.zIndex.modal, width: anchor?.clientWidth }}
        >
          <Paper elevation={8} sx={{ maxHeight: '70vh', overflowY: 'auto' }}>
            {hits.length > 0 ? (
              <SearchResults hits={hits} onOpen={close} dense />
            ) : (
              <Typography sx={{ p: 2, color: 'text.secondary' }}>
                {search.isFetching ? strings.search.searching : strings.search.nothing}
              </Typography>
            )}
          </Paper>
        </Popper>
      </div>
    </ClickAwayListener>
  );
}
