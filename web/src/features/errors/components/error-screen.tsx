import { Button, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';

type ErrorScreenProps = { icon: ReactNode; message: string; actionLabel: string; actionTo: string };

export function ErrorScreen({ icon, message, actionLabel, actionTo }: ErrorScreenProps) {
  return (
    <StandalonePage>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
        <Stack spacing={3} sx={{ alignItems: 'center', textAlign: 'center' }}>
          {icon}
          <Typography variant="h5" component="h1">
            {message}
          </Typography>
          <Button variant="contained" size="large" component={Link} to={actionTo}>
            {actionLabel}
          </Button>
        </Stack>
      </Paper>
    </StandalonePage>
  );
}
