import ArrowBack from '@mui/icons-material/ArrowBack';
import PrintOutlined from '@mui/icons-material/PrintOutlined';
import { Alert, Box, Button, GlobalStyles, Stack, Typography } from '@mui/material';
import { Link, useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { paths } from '@/config/paths';
import type { Label } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useDepartment, useLabelSheet } from '../api/equipment-queries';
import { qrDataUrl } from '../utils/qr-code';

const { labels } = equipmentStrings;

// An A4 sheet in the browser's print: three labels across, none split over two pages,
// and nothing of the page around them (buttons, background).
const printStyles = (
  <GlobalStyles
    styles={{
      '@page': { size: 'A4', margin: '10mm' },
      '@media print': {
        body: { background: '#fff' },
        '.no-print': { display: 'none !important' },
      },
    }}
  />
);

/** One label: the QR code of the model's instruction, the model and the inventory number. */
function UnitLabel({ label }: { label: Label }) {
  const qr = qrDataUrl(label.qrCode);
  return (
    <Box
      component="li"
      sx={{
        border: '1px dashed #9e9e9e',
        borderRadius: '2mm',
        p: '3mm',
        textAlign: 'center',
        breakInside: 'avoid',
        color: '#000',
      }}
    >
      {qr && (
        <Box
          component="img"
          src={qr}
          alt={labels.qrAlt(label.environmentModelName)}
          sx={{
            width: '40mm',
            height: '40mm',
            maxWidth: '100%',
            imageRendering: 'pixelated',
            display: 'block',
            mx: 'auto',
          }}
        />
      )}
      <Typography
        sx={{
          fontWeight: 700,
          fontSize: '11pt',
          lineHeight: 1.2,
          mt: '1mm',
          overflowWrap: 'anywhere',
        }}
      >
        {label.environmentModelName}
      </Typography>
      <Typography sx={{ fontSize: '10pt' }}>
        {equipmentStrings.inventoryNumber(label.inventoryNumber)}
      </Typography>
    </Box>
  );
}

/** Beyond the spec: a printable sheet of QR labels, one per unit of a department. */
export function LabelSheetPage() {
  const departmentId = parseId(useParams().departmentId);
  const department = useDepartment(departmentId);
  const sheet = useLabelSheet(departmentId);

  if (departmentId === undefined || sheet.isError) return <LoadError />;
  if (sheet.isPending) return <Loading />;
  const items = sheet.data.labels;
  const title = labels.title(department.data?.department?.title ?? '');

  return (
    <Box sx={{ bgcolor: '#fff', minHeight: '100vh', p: { xs: 2, sm: 4 }, '@media print': { p: 0 } }}>
      {printStyles}
      <Stack
        className="no-print"
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1.5}
        sx={{ mb: 3, alignItems: { sm: 'center' }, justifyContent: 'space-between' }}
      >
        <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
          {title}
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button
            component={Link}
            to={`${paths.departments}/environments/${departmentId}`}
            startIcon={<ArrowBack />}
          >
            {strings.pages.equipmentList}
          </Button>
          <Button
            variant="contained"
            startIcon={<PrintOutlined />}
            onClick={() => window.print()}
            disabled={items.length === 0}
          >
            {labels.print}
          </Button>
        </Stack>
      </Stack>
      {items.length === 0 ? (
        <Alert severity="info">{labels.empty}</Alert>
      ) : (
        <Box
          component="ul"
          aria-label={title}
          sx={{
            listStyle: 'none',
            m: 0,
            p: 0,
            display: 'grid',
            gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(3, 1fr)' },
            gap: '4mm',
            '@media print': { gridTemplateColumns: 'repeat(3, 1fr)' },
          }}
        >
          {items.map((label) => (
            <UnitLabel key={label.environmentId} label={label} />
          ))}
        </Box>
      )}
    </Box>
  );
}
