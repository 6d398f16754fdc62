import AttachFileOutlined from '@mui/icons-material/AttachFileOutlined';
import UploadFileOutlined from '@mui/icons-material/UploadFileOutlined';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useState } from 'react';

import { DiscardDialog } from '@/components/discard-dialog';
import { UploadProgress } from '@/components/upload-progress';
import { equipmentStrings } from '@/lib/equipment-strings';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';
import { reloadSaved, useUnsavedChanges } from '@/lib/unsaved';
import { useUpload } from '@/lib/use-upload';

import { saveDocument } from '../api/uploads';

const { documents } = equipmentStrings;

/**
 * 'Загрузить документ' (spec §2): a title and a file. As the spec says, nothing is
 * required here: the server answers a missing file with its own message, shown in place.
 */
export function UploadDocumentDialog({ modelId }: { modelId: bigint }) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [file, setFile] = useState<File | undefined>(undefined);
  const upload = useUpload();
  const pending = upload.sent !== undefined;
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [cancelled, setCancelled] = useState(false);

  const { confirmDiscard, discardDialog } = useUnsavedChanges(open && (title !== '' || file !== undefined));

  const close = () => {
    setOpen(false);
    setTitle('');
    setFile(undefined);
    setFailure(undefined);
    setCancelled(false);
  };

  const send = async () => {
    setFailure(undefined);
    setCancelled(false);
    const result = await saveDocument(modelId, title.trim(), file, upload.start());
    if (upload.finish()) {
      // Nothing was saved: the form keeps the title and the file for another try.
      setCancelled(true);
      return;
    }
    if (!result.ok) {
      setFailure(result.message);
      return;
    }
    // Spec §4: after a successful upload the page reloads, with the document in its list.
    notify.success(documents.uploaded);
    close();
    reloadSaved();
  };

  return (
    <>
      <Button variant="contained" startIcon={<UploadFileOutlined />} onClick={() => setOpen(true)}>
        {documents.upload}
      </Button>
      <Dialog
        open={open}
        onClose={(_, reason) => {
          if (!pending && reason !== 'backdropClick') confirmDiscard(close);
        }}
        fullWidth
        maxWidth="sm"
        fullScreen={phone}
        aria-labelledby="upload-document-title"
      >
        <DialogTitle id="upload-document-title">{documents.uploadTitle}</DialogTitle>
        <DialogContent dividers>
          <Stack spacing={2.5}>
            <TextField
              label={documents.titleLabel}
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              disabled={pending}
              fullWidth
            />
            <Stack
              direction={{ xs: 'column', sm: 'row' }}
              spacing={1.5}
              sx={{ alignItems: { sm: 'center' } }}
            >
              <Button
                component="label"
                variant="outlined"
                startIcon={<AttachFileOutlined />}
                disabled={pending}
              >
                {documents.chooseFile}
                <input
                  type="file"
                  hidden
                  onChange={(event) => {
                    setFile(event.target.files?.[0]);
                    setFailure(undefined);
                    setCancelled(false);
                  }}
                />
              </Button>
              <Typography sx={{ color: file ? 'text.primary' : 'text.secondary', overflowWrap: 'anywhere' }}>
                {file?.name ?? documents.noFile}
              </Typography>
            </Stack>
            {upload.sent !== undefined && <UploadProgress sent={upload.sent} onCancel={upload.cancel} />}
            {cancelled && <Alert severity="info">{strings.upload.cancelled}</Alert>}
            {failure !== undefined && (
              <Alert severity="error" role="alert">
                <strong>{documents.uploadFailed}</strong> {failure}
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 2 }}>
          <Button onClick={() => confirmDiscard(close)} disabled={pending}>
            {strings.common.close}
          </Button>
          <Button variant="contained" loading={pending} onClick={() => void send()}>
            {documents.submit}
          </Button>
        </DialogActions>
        <DiscardDialog {...discardDialog} />
      </Dialog>
    </>
  );
}
