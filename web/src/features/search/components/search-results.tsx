import { Box, List, ListItemButton, ListItemText, ListSubheader } from '@mui/material';
import { Link } from 'react-router';

import { strings } from '@/lib/strings';

import type { SearchHit } from '../api/search';
import { groupByKind, snippetParts } from '../lib/snippet';

/** A snippet with its matched words marked; every part rendered as text, never as HTML. */
export function Snippet({ snippet }: { snippet: string }) {
  return (
    <>
      {snippetParts(snippet).map((part, i) =>
        part.marked ? (
          <Box component="mark" key={i} sx={{ bgcolor: 'warning.light', color: 'inherit', px: 0.25 }}>
            {part.text}
          </Box>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}

type Props = {
  hits: SearchHit[];
  /** Called when a hit is opened (the header's list closes). */
  onOpen?: () => void;
  dense?: boolean;
};

/** Hits grouped by kind under Russian headings, each a link to its page. */
export function SearchResults({ hits, onOpen, dense = false }: Props) {
  return (
    <List dense={dense} disablePadding aria-label={strings.search.label}>
      {groupByKind(hits).map((group) => (
        <li key={group.kind} aria-label={strings.search.kinds[group.kind]}>
          <List dense={dense} disablePadding component="ul">
            <ListSubheader disableSticky sx={{ lineHeight: 2.5 }}>
              {strings.search.kinds[group.kind]}
            </ListSubheader>
            {group.hits.map((hit) => (
              <ListItemButton
                key={`${hit.kind}-${hit.id}`}
                component={Link}
                to={hit.url}
                onClick={onOpen}
                sx={{ alignItems: 'flex-start' }}
              >
                <ListItemText
                  primary={hit.title}
                  secondary={<Snippet snippet={hit.snippet} />}
                  slotProps={{ secondary: { sx: { overflowWrap: 'anywhere' } } }}
                />
              </ListItemButton>
            ))}
          </List>
        </li>
      ))}
    </List>
  );
}
