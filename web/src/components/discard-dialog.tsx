import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useBlocker } from 'react-router';

import { getSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';
import { hasUnsavedChanges } from '@/lib/unsaved';

type DiscardDialogProps = { open: boolean; onStay: () => void; onDiscard: () => void };

/** «Закрыть без сохранения?»: staying is the default (Escape, the first button). */
export function DiscardDialog({ open, onStay, onDiscard }: DiscardDialogProps) {
  const text = strings.unsaved;
  return (
    <Dialog open={open} onClose={onStay} aria-labelledby="discard-title" aria-describedby="discard-text">
      <DialogTitle id="discard-title">{text.title}</DialogTitle>
      <DialogContent>
        <DialogContentText id="discard-text">{text.text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onStay} autoFocus>
          {text.stay}
        </Button>
        <Button color="error" onClick={onDiscard}>
          {text.discard}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * Asks before the portal leaves a page that holds unsaved input (a link, the back button).
 * Mounted once, around every signed-in page: a router takes one blocker. A session that
 * ended (sign-out, expiry) leaves without asking.
 */
export function LeaveGuard() {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      hasUnsavedChanges() && getSession() !== null && currentLocation.pathname !== nextLocation.pathname,
  );
  return (
    <DiscardDialog
      open={blocker.state === 'blocked'}
      onStay={() => blocker.reset?.()}
      onDiscard={() => blocker.proceed?.()}
    />
  );
}
