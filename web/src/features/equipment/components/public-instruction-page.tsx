import { Alert, Box, Button, Paper, Typography } from '@mui/material';
import { lazy, Suspense, useEffect } from 'react';
import { useLocation, useParams } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';
import { externalLinks } from '@/config/links';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { usePublicInstruction } from '../api/public-instruction';
import { InstructionHtml } from './instruction-html';
import { SavedCopyNotice } from './saved-copy-notice';

const text = strings.publicInstruction;

// The reader's clearance, loaded apart: a phone that is not signed in needs none of it. The
// offline copy's shell does not hold this module, so a phone with no signal shows the
// instruction without it rather than fail.
const PublicClearance = lazy(() =>
  import('./public-clearance').then(
    (module) => ({ default: module.PublicClearance }),
    () => ({ default: () => null }),
  ),
);
// Which unit a unit's label was scanned beside (`?unit=`), from the same module.
const PublicUnit = lazy(() =>
  import('./public-clearance').then(
    (module) => ({ default: module.PublicUnit }),
    () => ({ default: () => null }),
  ),
);

/**
 * The page an equipment model's QR code opens on a phone next to the device: no sign-in,
 * big type, pictures and video as wide as the screen. It reads the instruction over one
 * small public REST call, so a phone loads neither grpc-web nor the portal's layout. A phone
 * that is signed in also shows the reader's clearance to operate the model and, opened from a
 * unit's label (`?unit=`, issue 37), which unit it is.
 */
export function PublicInstructionPage() {
  const modelId = parseId(useParams().environmentId);
  const unitId = parseId(new URLSearchParams(useLocation().search).get('unit') ?? undefined);
  const state = usePublicInstruction(modelId);

  useEffect(() => {
    if (state.kind === 'loaded') document.title = state.value.name;
  }, [state]);

  let content;
  if (modelId === undefined) content = <Alert severity="error">{text.notFound}</Alert>;
  else if (state.kind === 'loading')
    content = <Typography sx={{ fontSize: '1.25rem' }}>{strings.common.loading}</Typography>;
  else if (state.kind === 'failed') {
    content = (
      <Alert severity="error" sx={{ fontSize: '1.125rem' }}>
        <strong>{text.failed}</strong> {state.message}
      </Alert>
    );
  } else {
    content = (
      <>
        <Suspense fallback={null}>
          <PublicClearance modelId={modelId} />
        </Suspense>
        <Paper variant="outlined" component="article" sx={{ p: { xs: 2, sm: 3 } }}>
          <Typography
            variant="h4"
            component="h1"
            sx={{
              fontWeight: 700,
              fontSize: { xs: '1.75rem', sm: '2.125rem' },
              mb: 2,
              overflowWrap: 'anywhere',
            }}
          >
            {state.value.name}
          </Typography>
          {unitId !== undefined && (
            <Suspense fallback={null}>
              <PublicUnit modelId={modelId} unitId={unitId} />
            </Suspense>
          )}
          {state.value.shortInstruction.trim() === '' ? (
            <Typography sx={{ fontSize: '1.25rem', color: 'text.secondary' }}>{text.empty}</Typography>
          ) : (
            <InstructionHtml
              html={state.value.shortInstruction}
              sx={{
                fontSize: '1.25rem',
                lineHeight: 1.6,
                '& h1': { fontSize: '1.75rem' },
                '& h2': { fontSize: '1.5rem' },
                '& h3': { fontSize: '1.3rem' },
              }}
            />
          )}
        </Paper>
      </>
    );
  }

  return (
    <StandalonePage>
      {state.kind === 'loaded' && state.savedAt && <SavedCopyNotice savedAt={state.savedAt} />}
      {content}
      <Box sx={{ mt: 3, textAlign: 'center' }}>
        <Button href={externalLinks.mainSite} size="large">
          {strings.nav.mainSite}
        </Button>
      </Box>
    </StandalonePage>
  );
}
