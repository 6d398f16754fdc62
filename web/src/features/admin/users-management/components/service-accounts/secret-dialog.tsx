import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  InputAdornment,
  Stack,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useRef, useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';

import type { IssuedSecret } from '../../api/service-account-queries';
import { CopyButton } from './copy-button';

const text = adminStrings.serviceAccounts;

/** A value to copy: read-only, in a fixed-width font, selected whole on focus. */
function CopyField({ label, value }: { label: string; value: string }) {
  const input = useRef<HTMLInputElement>(null);
  const select = () => {
    input.current?.focus();
    input.current?.select();
  };
  return (
    <TextField
      label={label}
      value={value}
      fullWidth
      inputRef={input}
      onFocus={(event) => event.target.select()}
      slotProps={{
        htmlInput: { readOnly: true, spellCheck: false, sx: { fontFamily: 'monospace', fontSize: '0.9rem' } },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <CopyButton value={value} what={label} select={select} />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

type SecretDialogProps = {
  /** The secret to show the one time; the dialog is open while there is one. */
  issued: IssuedSecret | undefined;
  /** A new account's first secret, or one issued beside a live one. */
  kind: 'created' | 'rotated';
  /** The one way out: a button that says the secret has been kept. */
  onClose: () => void;
};

/**
 * A client secret, shown once (issue 21): the client id and the secret, each with a copy
 * button, and the warning that it cannot be seen again. Neither Escape nor a click beside it
 * closes it: only its button, deliberately.
 */
export function SecretDialog({ issued, kind, onClose }: SecretDialogProps) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const dialog = text.secretDialog;
  // What closing fades out is still the secret; it is dropped once the dialog is gone.
  const [shown, setShown] = useState(issued);
  if (issued !== undefined && issued !== shown) setShown(issued);

  return (
    <Dialog
      open={issued !== undefined}
      slotProps={{ transition: { onExited: () => setShown(undefined) } }}
      disableEscapeKeyDown
      fullWidth
      maxWidth="sm"
      fullScreen={phone}
      aria-labelledby="secret-dialog-title"
      aria-describedby="secret-dialog-warning"
    >
      <DialogTitle id="secret-dialog-title">
        {kind === 'created' ? dialog.createdTitle : dialog.rotatedTitle}
      </DialogTitle>
      {shown && (
        <DialogContent dividers>
          <Stack spacing={2.5}>
            <Alert severity="warning" id="secret-dialog-warning">
              {dialog.warning}
            </Alert>
            <CopyField label={text.clientId} value={shown.clientId} />
            <CopyField label={text.clientSecret} value={shown.clientSecret} />
            {kind === 'rotated' && <Alert severity="info">{dialog.rotatedNote}</Alert>}
            <Typography variant="body2" sx={{ color: 'text.secondary' }}>
              {dialog.tokenHint}
            </Typography>
          </Stack>
        </DialogContent>
      )}
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button variant="contained" onClick={onClose}>
          {dialog.done}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
