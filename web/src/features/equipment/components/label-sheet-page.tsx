import ArrowBack from '@mui/icons-material/ArrowBack';
import PrintOutlined from '@mui/icons-material/PrintOutlined';
import { Alert, Box, Button, GlobalStyles, Stack, Typography } from '@mui/material';
import { Link, useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { paths } from '@/config/paths';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useDepartment, useModels, useModelsByDepartment } from '../api/equipment-queries';
import { unitsIn } from '../utils/department-maintenance';
import { qrDataUrl } from '../utils/qr-code';

const { labels } = strings.equipment;
const collator = new Intl.Collator('ru-RU', { numeric: true });

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

/** Beyond the spec: a printable sheet of QR labels, one per unit of a department. */
export function LabelSheetPage() {
  const departmentId = parseId(useParams().departmentId);
  const department = useDepartment(departmentId);
  const list = useModelsByDepartment(departmentId);
  const models = useModels((list.data?.environmentModels ?? []).map((model) => model.id));

  if (departmentId === undefined || list.isError || models.some((query) => query.isError))
    return <LoadError />;
  if (list.isPending || models.some((query) => query.isPending)) return <Loading />;

  const items = models
    .flatMap((query) => {
      const model = query.data?.environmentModel;
      if (!model) return [];
      const qr = qrDataUrl(model.shortInstructionQrCode);
      return unitsIn(model, departmentId).map((unit) => ({ unit, name: model.name, qr }));
    })
    .sort(
      (a, b) =>
        collator.compare(a.name, b.name) || collator.compare(a.unit.inventoryNumber, b.unit.inventoryNumber),
    );
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
          {items.map(({ unit, name, qr }) => (
            <Box
              component="li"
              key={unit.id}
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
                  alt={labels.qrAlt(name)}
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
                {name}
              </Typography>
              <Typography sx={{ fontSize: '10pt' }}>
                {strings.equipment.inventoryNumber(unit.inventoryNumber)}
              </Typography>
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}
