import { Alert } from '@mui/material';

import { formatDayAndTime } from '@/lib/dates';
import { strings } from '@/lib/strings';

/**
 * Over an instruction the phone saved on an earlier visit, shown because the network is down:
 * the reader next to the device should know it may be out of date, and since when.
 */
export function SavedCopyNotice({ savedAt }: { savedAt: Date }) {
  return (
    <Alert severity="warning" role="status" sx={{ mb: 2, fontSize: '1.125rem' }}>
      {strings.publicInstruction.savedCopy(formatDayAndTime(savedAt))}
    </Alert>
  );
}
