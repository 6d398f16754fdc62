import { Button, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';

/** The one way out of an error: a link to a page, or a button that does something (a reload). */
export type ErrorAction = { label: string } & ({ to: string } | { onClick: () => void });

type ErrorScreenProps = {
  icon: ReactNode;
  message: string;
  /** A sentence under the message: what happened, what to do. */
  hint?: string;
  action: ErrorAction;
  /** A page of its own with the logos; otherwise a card inside the portal's layout. */
  standalone?: boolean;
};

export function ErrorScreen({ icon, message, hint, action, standalone = true }: ErrorScreenProps) {
  const card = (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
      <Stack spacing={3} sx={{ alignItems: 'center', textAlign: 'center' }}>
        {icon}
        {/* Inside the layout the section heading is the page's h1. */}
        <Typography variant="h5" component={standalone ? 'h1' : 'h2'}>
          {message}
        </Typography>
        {hint && <Typography sx={{ color: 'text.secondary' }}>{hint}</Typography>}
        {'to' in action ? (
          <Button variant="contained" size="large" component={Link} to={action.to}>
            {action.label}
          </Button>
        ) : (
          <Button variant="contained" size="large" onClick={action.onClick}>
            {action.label}
          </Button>
        )}
      </Stack>
    </Paper>
  );
  return standalone ? <StandalonePage>{card}</StandalonePage> : card;
}
