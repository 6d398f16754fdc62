import DownloadOutlined from '@mui/icons-material/DownloadOutlined';
import EditNoteOutlined from '@mui/icons-material/EditNoteOutlined';
import OpenInNew from '@mui/icons-material/OpenInNew';
import { Box, Button, Paper, Stack, Typography } from '@mui/material';
import { lazy, Suspense, useState } from 'react';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { RevisionHistory } from '@/components/revision-history';
import { equipmentStrings } from '@/lib/equipment-strings';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import {
  useInstructionRevisions,
  useInstructionRevisionText,
  useModel,
  useRestoreInstructionRevision,
} from '../api/equipment-queries';
import { downloadQrCode, qrDataUrl } from '../utils/qr-code';
import { InstructionHtml } from './instruction-html';

// Quill comes with the dialog, on its first opening: never with a page that only reads.
const InstructionDialog = lazy(async () => ({
  default: (await import('./instruction-dialog')).InstructionDialog,
}));

const { instruction } = equipmentStrings;

/** «История изменений» of the instruction, for its editors. */
function InstructionHistory({ modelId }: { modelId: bigint }) {
  const restore = useRestoreInstructionRevision();
  return (
    <RevisionHistory
      load={useInstructionRevisions(modelId)}
      size={strings.revisions.articleSize}
      textOf={useInstructionRevisionText(modelId)}
      restore={(revisionId) => restore.mutateAsync({ environmentModelId: modelId, revisionId })}
      cacheKey={['instruction', modelId.toString()]}
    />
  );
}

/** Spec §2: the short instruction of a model, its QR code and the editor for editors. */
export function ShortInstructionPage() {
  const modelId = parseId(useParams().id);
  const query = useModel(modelId);
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const [open, setOpen] = useState(false);

  if (modelId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const model = query.data.environmentModel;
  if (!model) return <LoadError message={equipmentStrings.modelNotFound} />;
  const qr = qrDataUrl(model.shortInstructionQrCode);
  const publicPage = `/short-instruction/${model.id}`;

  return (
    <Stack spacing={3}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
        <Button variant="contained" startIcon={<EditNoteOutlined />} onClick={() => setOpen(true)}>
          {instruction.open}
        </Button>
        <Button href={publicPage} target="_blank" rel="noopener" startIcon={<OpenInNew />}>
          {instruction.openPublic}
        </Button>
      </Stack>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        {model.shortInstruction.trim() === '' ? (
          <Typography sx={{ color: 'text.secondary' }}>{instruction.empty}</Typography>
        ) : (
          <InstructionHtml html={model.shortInstruction} />
        )}
      </Paper>
      <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
        <Box
          component="img"
          src={qr}
          alt={instruction.qrAlt}
          width={400}
          height={400}
          sx={{
            width: 400,
            height: 'auto',
            aspectRatio: '1',
            maxWidth: '100%',
            objectFit: 'contain',
            imageRendering: 'pixelated',
            bgcolor: 'common.white',
            // An outline, not a border: the image stays 400×400 (spec §9).
            outline: 1,
            outlineColor: 'divider',
          }}
        />
        <Button
          variant="outlined"
          startIcon={<DownloadOutlined />}
          disabled={qr === undefined}
          onClick={() => {
            if (qr === undefined) return;
            downloadQrCode(qr, instruction.qrFileName(model.name)).catch((error: unknown) => {
              console.error('QR code download failed:', error);
              notify.error(strings.errors.loadFailed);
            });
          }}
        >
          {instruction.downloadQr}
        </Button>
      </Stack>
      {editor && <InstructionHistory modelId={model.id} />}
      {open && (
        <Suspense fallback={null}>
          <InstructionDialog model={model} editable={editor} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </Stack>
  );
}
