import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useId, type ReactNode } from 'react';

import { adminStrings } from '@/lib/admin-strings';

type ConfirmDialogProps = {
  open: boolean;
  title: string;
  /** What will happen, one paragraph each. */
  children: ReactNode;
  confirmLabel: string;
  /** A change that stops a system working is red. */
  danger?: boolean;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/** Asks before a change to a system's access; cancelling is the default (Escape, the first button). */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger = false,
  pending,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const id = useId();
  return (
    <Dialog
      open={open}
      onClose={() => {
        if (!pending) onCancel();
      }}
      maxWidth="xs"
      fullWidth
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
    >
      <DialogTitle id={`${id}-title`}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={`${id}-text`} component="div" sx={{ '& p + p': { mt: 1.5 } }}>
          {children}
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onCancel} disabled={pending} autoFocus>
          {adminStrings.serviceAccounts.cancel}
        </Button>
        <Button
          variant="contained"
          color={danger ? 'error' : 'primary'}
          loading={pending}
          onClick={onConfirm}
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
