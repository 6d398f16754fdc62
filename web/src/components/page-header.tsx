import { Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

type PageHeaderProps = { title: ReactNode; action?: ReactNode };

/** The title of a page inside a section, with the page's main action beside it. */
export function PageHeader({ title, action }: PageHeaderProps) {
  return (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      spacing={1.5}
      sx={{ alignItems: { xs: 'stretch', sm: 'center' }, justifyContent: 'space-between', mb: 2.5 }}
    >
      <Typography variant="h6" component="h2" sx={{ fontWeight: 600 }}>
        {title}
      </Typography>
      {action}
    </Stack>
  );
}
