import { List, ListSubheader, Paper } from '@mui/material';
import type { ReactNode } from 'react';

import type { LetterGroup } from '@/lib/group-by-letter';

type LetterGroupsProps<T> = {
  groups: LetterGroup<T>[];
  /** One row: a `LinkListItem` (or a `ListItem` with `divider`) with its own key. */
  renderItem: (item: T) => ReactNode;
};

/** A list grouped under its first letters (see `groupByFirstLetter`), one list per letter. */
export function LetterGroups<T>({ groups, renderItem }: LetterGroupsProps<T>) {
  return (
    <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
      <List disablePadding>
        {groups.map(({ letter, items }) => (
          <li key={letter}>
            <List disablePadding aria-label={letter}>
              <ListSubheader
                disableSticky
                sx={{
                  bgcolor: 'background.default',
                  color: 'primary.main',
                  fontWeight: 700,
                  fontSize: '0.9375rem',
                  lineHeight: '36px',
                  borderBottom: 1,
                  borderColor: 'divider',
                  'li:not(:first-of-type) > ul > &': { borderTop: 1, borderTopColor: 'divider' },
                }}
              >
                {letter}
              </ListSubheader>
              {items.map(renderItem)}
            </List>
          </li>
        ))}
      </List>
    </Paper>
  );
}
