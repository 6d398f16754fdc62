import CloseIcon from '@mui/icons-material/Close';
import {
  Alert,
  Backdrop,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  Typography,
} from '@mui/material';
import type Quill from 'quill';
import { useEffect, useEffectEvent, useRef, useState } from 'react';

import { DiscardDialog } from '@/components/discard-dialog';
import { richTextStyle } from '@/components/rich-text-style';
import { UploadProgress } from '@/components/upload-progress';
import type { EnvironmentModel } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';
import { reloadSaved, useUnsavedChanges } from '@/lib/unsaved';
import { useUpload } from '@/lib/use-upload';

import { useSaveInstruction } from '../api/equipment-queries';
import { saveVideo } from '../api/uploads';
import { createEditor, editorHtml } from './instruction-editor';

const { instruction } = equipmentStrings;

const editorStyle = richTextStyle(instruction.headerLevels);

/** Spec §9: the page reloads 2 s after a saved instruction. */
const reloadDelayMs = 2000;

type InstructionDialogProps = {
  model: EnvironmentModel;
  /** Spec §4: editable only with the right; otherwise the same dialog reads. */
  editable: boolean;
  onClose: () => void;
};

/**
 * 'Редактирование инструкции' (spec §2, §4, §5): Quill over the model's instruction. Closing
 * drops the draft (the dialog unmounts and the next opening starts from the saved text),
 * after asking when it was edited; saving shows the spec's message and reloads the page 2 s
 * later.
 */
export function InstructionDialog({ model, editable, onClose }: InstructionDialogProps) {
  // A state, not a ref: the dialog renders its content a moment after it opens (a portal),
  // and the editor starts once that element exists.
  const [holder, setHolder] = useState<HTMLDivElement | null>(null);
  const editor = useRef<Quill | null>(null);
  const video = useUpload();
  const videoPending = video.sent !== undefined;
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const save = useSaveInstruction();
  const [edited, setEdited] = useState(false);
  const { confirmDiscard, discardDialog } = useUnsavedChanges(edited && !save.isSuccess);
  const close = () => confirmDiscard(onClose);

  const onVideo = useEffectEvent((file: File | undefined, insert: (url: string) => void) => {
    if (!file) {
      setFailure(instruction.noFile);
      return;
    }
    if (!file.type.startsWith('video/')) {
      setFailure(instruction.notVideo);
      return;
    }
    void saveVideo(file, video.start()).then((result) => {
      // A cancelled upload saved nothing and inserts nothing; the editor goes on as it was.
      if (video.finish()) notify.success(strings.upload.cancelled);
      else if (result.ok) insert(result.data.savedVideoUrl);
      else setFailure(result.message);
    });
  });
  const onRejectedImage = useEffectEvent(() => setFailure(instruction.imageTypes));

  useEffect(() => {
    const wrapper = holder;
    if (!wrapper) return;
    const host = document.createElement('div');
    wrapper.appendChild(host);
    const quill = createEditor(host, model.shortInstruction, !editable, {
      onVideo: (file, insert) => onVideo(file, insert),
      onRejectedImage: () => onRejectedImage(),
    });
    quill.on('text-change', (_delta, _old, source) => {
      if (source === 'user') setEdited(true);
    });
    editor.current = quill;
    return () => {
      editor.current = null;
      wrapper.replaceChildren();
    };
  }, [holder, model.shortInstruction, editable]);

  useEffect(() => {
    if (!save.isSuccess) return;
    const timer = setTimeout(reloadSaved, reloadDelayMs);
    return () => clearTimeout(timer);
  }, [save.isSuccess]);

  const submit = () => {
    const quill = editor.current;
    if (!quill) return;
    save.mutate(
      { environmentModelId: model.id, shortInstruction: editorHtml(quill) },
      {
        onSuccess: () => notify.success(instruction.saved),
        onError: (error) => setFailure(errorMessage(error)),
      },
    );
  };
  const busy = save.isPending || save.isSuccess || videoPending;

  return (
    <Dialog
      open
      fullWidth
      maxWidth="lg"
      onClose={(_, reason) => {
        if (!busy && reason !== 'backdropClick') close();
      }}
      aria-labelledby="instruction-dialog-title"
    >
      <DialogTitle id="instruction-dialog-title" sx={{ pr: 7 }}>
        {editable ? instruction.editorTitle : instruction.readerTitle}
        <Typography component="span" sx={{ display: 'block', color: 'text.secondary' }}>
          {model.name}
        </Typography>
      </DialogTitle>
      <IconButton
        aria-label={instruction.closeX}
        onClick={close}
        disabled={busy}
        sx={{ position: 'absolute', right: 12, top: 12 }}
      >
        <CloseIcon />
      </IconButton>
      {/* No top padding: the sticky toolbar meets the edge, with no strip above it for text to scroll through. */}
      <DialogContent dividers sx={{ pt: 0 }}>
        <Box
          ref={setHolder}
          sx={{
            ...editorStyle,
            '& .ql-container, & .ql-editor': { minHeight: 320 },
            '& .ql-editor img': { maxWidth: '100%' },
            '& .ql-editor .ql-video': { width: '100%', aspectRatio: '16 / 9', height: 'auto' },
          }}
        />
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button onClick={close} disabled={busy}>
          {strings.common.close}
        </Button>
        {editable && (
          <Button variant="contained" loading={save.isPending} disabled={busy} onClick={submit}>
            {strings.common.save}
          </Button>
        )}
      </DialogActions>
      <Backdrop
        open={videoPending}
        // MUI hides a backdrop from assistive technology; this one carries the upload's status.
        slotProps={{ root: { 'aria-hidden': false } }}
        sx={{ zIndex: (theme) => theme.zIndex.modal + 1, color: '#fff' }}
      >
        <Stack spacing={2} sx={{ alignItems: 'center', width: '100%', px: 3 }} role="status">
          <Typography variant="h6" component="p">
            {instruction.videoUploading}
          </Typography>
          {video.sent !== undefined && (
            <UploadProgress sent={video.sent} onCancel={video.cancel} color="inherit" />
          )}
        </Stack>
      </Backdrop>
      <Dialog
        open={failure !== undefined}
        onClose={() => setFailure(undefined)}
        aria-labelledby="instruction-error"
      >
        <DialogTitle id="instruction-error">{instruction.errorTitle}</DialogTitle>
        <DialogContent>
          <Alert severity="error">{failure}</Alert>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setFailure(undefined)}>{strings.common.close}</Button>
        </DialogActions>
      </Dialog>
      <DiscardDialog {...discardDialog} />
    </Dialog>
  );
}
