import DeleteOutline from '@mui/icons-material/DeleteOutline';
import DescriptionOutlined from '@mui/icons-material/DescriptionOutlined';
import ImageOutlined from '@mui/icons-material/ImageOutlined';
import MovieOutlined from '@mui/icons-material/MovieOutlined';
import PictureAsPdfOutlined from '@mui/icons-material/PictureAsPdfOutlined';
import {
  Alert,
  IconButton,
  Link,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Paper,
  Stack,
  Typography,
} from '@mui/material';
import { useParams } from 'react-router';

import { Loading } from '@/components/load-state';
import type { File } from '@/gen/portal/files/v1/files_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';

import { useDeleteDocument, useDocuments } from '../api/equipment-queries';
import { UploadDocumentDialog } from './upload-document-dialog';

const { documents } = equipmentStrings;

function DocumentIcon({ file }: { file: File }) {
  if (file.contentType === 'application/pdf') return <PictureAsPdfOutlined color="error" />;
  if (file.contentType.startsWith('image/')) return <ImageOutlined color="primary" />;
  if (file.contentType.startsWith('video/')) return <MovieOutlined color="primary" />;
  return <DescriptionOutlined color="primary" />;
}

const kib = 1024;
const size = (bytes: bigint) => {
  const value = Number(bytes);
  if (value < kib * kib) return `${Math.max(1, Math.round(value / kib))} КБ`;
  return `${(value / kib / kib).toFixed(1).replace('.', ',')} МБ`;
};

/**
 * Spec §2: the documents of a model, each title a plain link to its download address (a new
 * tab; middle-click and "copy link" work), which carries a download link that needs no token.
 */
export function DocumentationPage() {
  const modelId = parseId(useParams().id);
  const query = useDocuments(modelId);
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const remove = useDeleteDocument();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <Alert severity="error">{documents.loadFailed}</Alert>;
  else if (query.data.files.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{documents.empty}</Typography>;
  } else {
    content = (
      <Paper variant="outlined">
        <List disablePadding>
          {query.data.files.map((file) => (
            <ListItem
              key={file.id}
              divider
              secondaryAction={
                editor && (
                  <IconButton
                    edge="end"
                    aria-label={documents.remove(file.title)}
                    disabled={remove.isPending}
                    onClick={() => {
                      if (!window.confirm(documents.removeConfirm(file.title))) return;
                      remove.mutate(
                        { id: file.id },
                        {
                          onSuccess: () => notify.success(documents.removed),
                          onError: (error) => notify.error(errorMessage(error)),
                        },
                      );
                    }}
                  >
                    <DeleteOutline />
                  </IconButton>
                )
              }
            >
              <ListItemIcon sx={{ minWidth: 40 }}>
                <DocumentIcon file={file} />
              </ListItemIcon>
              <ListItemText
                primary={
                  <Link href={file.url} target="_blank" rel="noopener" underline="hover">
                    {file.title || file.fileName}
                  </Link>
                }
                secondary={`${file.fileName} · ${size(file.size)}`}
                slotProps={{
                  primary: { sx: { overflowWrap: 'anywhere' } },
                  secondary: { sx: { overflowWrap: 'anywhere' } },
                }}
              />
            </ListItem>
          ))}
        </List>
      </Paper>
    );
  }

  return (
    <Stack spacing={2}>
      {editor && modelId !== undefined && (
        <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
          <UploadDocumentDialog modelId={modelId} />
        </Stack>
      )}
      {content}
    </Stack>
  );
}
