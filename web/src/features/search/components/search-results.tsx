import { alpha, Box, List, ListItem, ListItemButton, ListItemText, ListSubheader } from '@mui/material';
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
          // A pale tint under the darkest text: 4.5:1 and more (the snippet's grey on the
          // theme's light orange was not).
          <Box
            component="mark"
            key={i}
            sx={{
              bgcolor: (theme) => alpha(theme.palette.warning.main, 0.2),
              color: 'text.primary',
              px: 0.25,
            }}
          >
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
            {/* Each link in an <li> of its own, which screen readers count as a list item. */}
            {group.hits.map((hit) => (
              <ListItem key={`${hit.kind}-${hit.id}`} disablePadding>
                <ListItemButton
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
              </ListItem>
            ))}
          </List>
        </li>
      ))}
    </List>
  );
}
