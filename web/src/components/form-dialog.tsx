import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useEffect, useEffectEvent, type ReactNode } from 'react';

import { strings } from '@/lib/strings';
import { DraftContext, useDraftTracker, useUnsavedChanges } from '@/lib/unsaved';

import { DiscardDialog } from './discard-dialog';

type FormDialogProps = {
  open: boolean;
  title: string;
  /** The `id` of the form inside, which the submit button submits. */
  formId: string;
  submitLabel: string;
  pending: boolean;
  /** The form was saved: the dialog waits `closeDelayMs` (spec §9), then calls `onDone`. */
  succeeded: boolean;
  closeDelayMs: number;
  onClose: () => void;
  /** Resets the form and closes the dialog after a success. */
  onDone: () => void;
  /** A form with many fields (a test's questions) gets more room. */
  wide?: boolean;
  children: ReactNode;
};

/** A create dialog (spec §4): after a success it stays a moment, then resets and closes. */
export function FormDialog({
  open,
  title,
  formId,
  submitLabel,
  pending,
  succeeded,
  closeDelayMs,
  onClose,
  onDone,
  wide = false,
  children,
}: FormDialogProps) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const done = useEffectEvent(onDone);
  const draft = useDraftTracker();
  // Closing (Escape, 'Закрыть') asks first while something typed is unsaved (issue 19).
  const { confirmDiscard, discardDialog } = useUnsavedChanges(open && draft.dirty && !succeeded);
  const close = () => confirmDiscard(onClose);

  useEffect(() => {
    if (!succeeded) return;
    const timer = setTimeout(done, closeDelayMs);
    return () => clearTimeout(timer);
  }, [succeeded, closeDelayMs]);

  return (
    <Dialog
      open={open}
      // A click beside the dialog is too easy a way to lose what was typed into it: it
      // closes by its button (or Escape) only.
      onClose={(_, reason) => {
        if (!pending && reason !== 'backdropClick') close();
      }}
      fullWidth
      maxWidth={wide ? 'md' : 'sm'}
      fullScreen={phone}
      aria-labelledby={`${formId}-title`}
    >
      <DialogTitle id={`${formId}-title`}>{title}</DialogTitle>
      <DialogContent dividers>
        <DraftContext value={draft.report}>{children}</DraftContext>
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button onClick={close} disabled={pending}>
          {strings.common.close}
        </Button>
        <Button type="submit" form={formId} variant="contained" loading={pending} disabled={succeeded}>
          {submitLabel}
        </Button>
      </DialogActions>
      <DiscardDialog {...discardDialog} />
    </Dialog>
  );
}
