import ArrowBack from '@mui/icons-material/ArrowBack';
import PrintOutlined from '@mui/icons-material/PrintOutlined';
import { Box, Button, Dialog, GlobalStyles, Stack, Typography } from '@mui/material';

import { formatMoment } from '@/lib/dates';
import { firstSignInStrings } from '@/lib/first-sign-in-strings';

import type { CodeSheet } from './first-sign-in';

const text = firstSignInStrings.sheet;

// An A4 sheet in the browser's print: the dialog alone (it is outside #root), without its
// buttons and the page behind it.
const printStyles = (
  <GlobalStyles
    styles={{
      '@page': { size: 'A4', margin: '20mm' },
      '@media print': {
        body: { background: '#fff' },
        '#root': { display: 'none !important' },
        '.no-print, .MuiBackdrop-root': { display: 'none !important' },
        '.MuiDialog-container, .MuiDialog-paper': { position: 'static !important' },
      },
    }}
  />
);

function Row({ label, value, big = false }: { label: string; value: string; big?: boolean }) {
  return (
    <Box component="div" sx={{ py: '3mm', borderBottom: '1px solid #bdbdbd' }}>
      <Typography sx={{ fontSize: '10pt', color: '#555' }}>{label}</Typography>
      <Typography
        sx={{
          fontSize: big ? '26pt' : '14pt',
          fontWeight: big ? 700 : 500,
          fontFamily: big ? 'monospace' : undefined,
          letterSpacing: big ? '0.08em' : undefined,
          overflowWrap: 'anywhere',
        }}
      >
        {value}
      </Typography>
    </Box>
  );
}

/**
 * «Код для первого входа» on paper (issue 39.3): who, the login, the code, where to enter it
 * and until when, over the whole window, ready for the browser's print. The code is shown this
 * once (it is kept only hashed): closed, it is gone.
 */
export function FirstSignInCodeSheet({ sheet, onClose }: { sheet: CodeSheet; onClose: () => void }) {
  return (
    <Dialog open fullScreen onClose={onClose} aria-label={text.title}>
      {printStyles}
      <Box sx={{ maxWidth: '170mm', width: '100%', mx: 'auto', p: { xs: 2, sm: 4 }, color: '#000' }}>
        <Stack direction="row" spacing={1} className="no-print" sx={{ mb: 3 }}>
          <Button onClick={onClose} startIcon={<ArrowBack />}>
            {text.back}
          </Button>
          <Button variant="contained" startIcon={<PrintOutlined />} onClick={() => window.print()}>
            {text.print}
          </Button>
        </Stack>
        <Box component="section" aria-label={text.title}>
          <Typography variant="h5" component="h1" sx={{ fontWeight: 700, mb: '4mm' }}>
            {text.title}
          </Typography>
          <Row label={text.person} value={sheet.fullName} />
          <Row label={text.login} value={sheet.login} />
          <Row label={text.code} value={sheet.code} big />
          <Row label={text.where} value={text.whereHint(sheet.signInUrl)} />
          <Row label={text.validUntil} value={formatMoment(sheet.expiresAt)} />
          <Typography sx={{ fontSize: '11pt', mt: '5mm' }}>{text.once}</Typography>
        </Box>
      </Box>
    </Dialog>
  );
}
