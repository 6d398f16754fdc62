import { Box, Button, LinearProgress, Stack, Typography } from '@mui/material';
import { useId } from 'react';

import { strings } from '@/lib/strings';

type UploadProgressProps = {
  /** The share of the file sent, 0 to 1. */
  sent: number;
  onCancel: () => void;
  /** White on the dark backdrop of the instruction editor. */
  color?: 'primary' | 'inherit';
};

/**
 * A running upload (issue 19): a bar with the percent sent and a button that cancels it.
 * Once the whole file is sent the server is storing it, and it can no longer be taken back.
 */
export function UploadProgress({ sent, onCancel, color = 'primary' }: UploadProgressProps) {
  const label = useId();
  const percent = Math.min(100, Math.floor(sent * 100));
  const stored = sent >= 1;
  return (
    <Stack spacing={1} role="status" sx={{ width: '100%', maxWidth: 480 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
        <Typography id={label} sx={{ flex: 1, minWidth: 0 }}>
          {stored ? strings.upload.saving : strings.upload.progress(percent)}
        </Typography>
        <Button size="small" color={color} variant="outlined" onClick={onCancel} disabled={stored}>
          {strings.upload.cancel}
        </Button>
      </Box>
      <LinearProgress
        variant={stored ? 'indeterminate' : 'determinate'}
        value={percent}
        color={color}
        aria-labelledby={label}
      />
    </Stack>
  );
}
