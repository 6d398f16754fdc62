import { Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

type EmptyStateProps = { icon: ReactNode; title: string; text: string };

/** A page or list with nothing to show yet, and what will appear there. */
export function EmptyState({ icon, title, text }: EmptyStateProps) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 4, sm: 6 } }}>
      <Stack spacing={1.5} sx={{ alignItems: 'center', textAlign: 'center', color: 'text.secondary' }}>
        {icon}
        <Typography variant="h6" component="h2" sx={{ color: 'text.primary' }}>
          {title}
        </Typography>
        <Typography sx={{ maxWidth: 440 }}>{text}</Typography>
      </Stack>
    </Paper>
  );
}
