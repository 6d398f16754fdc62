import { List, ListItem, ListItemButton, Paper } from '@mui/material';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

/**
 * One row of a list that leads somewhere: a whole-row link inside its own `<li>`. A
 * `ListItemButton` put straight into a `List` is an `<a>` directly inside a `<ul>`, which
 * screen readers do not count as a list item (axe's `list` rule).
 */
export function LinkListItem({ to, children }: { to: string; children: ReactNode }) {
  return (
    <ListItem disablePadding divider>
      <ListItemButton component={Link} to={to}>
        {children}
      </ListItemButton>
    </ListItem>
  );
}

/** A list of `LinkListItem` rows in an outlined paper. */
export function LinkList({ label, children }: { label?: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
      <List disablePadding aria-label={label}>
        {children}
      </List>
    </Paper>
  );
}
