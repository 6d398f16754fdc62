import { Paper, Table, TableContainer, type Theme } from '@mui/material';
import type { ReactNode } from 'react';

type DataTableProps = {
  /** The table's accessible name (what it lists). */
  label?: string;
  /** Its head and body: MUI's TableHead, TableBody and their rows. */
  children: ReactNode;
  /** In an outlined paper of its own, or bare (inside a section's paper). */
  framed?: boolean;
  /** A narrow table's widest (px), so that it does not stretch over a wide screen. */
  maxWidth?: number;
};

// A phone is narrower than most tables. Squeezed, a column shrank to one letter a line
// («Сотрудник», «Тесты пройдены»; issue 37 point 15); now every table keeps its words whole
// (the theme's table cells) and scrolls sideways in its own box when it does not fit, its first
// column (who or what the row is about) staying in view, marked off by a line while it scrolls.
const stickyFirstColumn = (theme: Theme) => ({
  '& tr > :first-of-type': {
    position: 'sticky',
    left: 0,
    zIndex: 1,
    bgcolor: 'background.paper',
    [theme.breakpoints.down('md')]: { boxShadow: `inset -1px 0 0 ${theme.palette.divider}` },
  },
});

/** Every table of the portal: whole words, sideways scrolling in its own box, the first column fixed. */
export function DataTable({ label, children, framed = false, maxWidth }: DataTableProps) {
  const table = (
    <TableContainer sx={{ overflowX: 'auto', maxWidth }}>
      <Table size="small" aria-label={label} sx={stickyFirstColumn}>
        {children}
      </Table>
    </TableContainer>
  );
  return framed ? (
    <Paper variant="outlined" sx={{ maxWidth, overflow: 'hidden' }}>
      {table}
    </Paper>
  ) : (
    table
  );
}
