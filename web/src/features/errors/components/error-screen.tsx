import { Button, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';

type ErrorScreenProps = {
  icon: ReactNode;
  message: string;
  actionLabel: string;
  actionTo: string;
  /** A page of its own with the logos; otherwise a card inside the portal's layout. */
  standalone?: boolean;
};

export function ErrorScreen({ icon, message, actionLabel, actionTo, standalone = true }: ErrorScreenProps) {
  const card = (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
      <Stack spacing={3} sx={{ alignItems: 'center', textAlign: 'center' }}>
        {icon}
        {/* Inside the layout the section heading is the page's h1. */}
        <Typography variant="h5" component={standalone ? 'h1' : 'h2'}>
          {message}
        </Typography>
        <Button variant="contained" size="large" component={Link} to={actionTo}>
          {actionLabel}
        </Button>
      </Stack>
    </Paper>
  );
  return standalone ? <StandalonePage>{card}</StandalonePage> : card;
}
