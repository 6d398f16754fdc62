import { Alert, Box, CircularProgress } from '@mui/material';

import { strings } from '@/lib/strings';

/** Shown while a page's data loads. */
export function Loading() {
  return (
    <Box
      role="status"
      aria-label={strings.common.loading}
      sx={{ display: 'flex', justifyContent: 'center', py: 6 }}
    >
      <CircularProgress />
    </Box>
  );
}

/** Shown in place of data that failed to load; the server's reason is in a toast already. */
export function LoadError({ message = strings.errors.loadFailed }: { message?: string }) {
  return <Alert severity="error">{message}</Alert>;
}
