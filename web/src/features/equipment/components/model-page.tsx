import MonitorHeartOutlined from '@mui/icons-material/MonitorHeartOutlined';
import { Box, Paper, Stack, Typography } from '@mui/material';
import { Outlet, useParams } from 'react-router';

import { LoadError } from '@/components/load-state';
import { NavTabs } from '@/components/nav-tabs';
import { NotFound } from '@/components/not-found';
import { paths } from '@/config/paths';
import { equipmentStrings } from '@/lib/equipment-strings';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useModelHere } from '../api/model-here';
import { ModelClearance } from './model-clearance';
import { UnitsList } from './units-list';

/**
 * Spec §2: an equipment model of a department: its name ('Загрузка...' while it loads), an
 * illustration, the reader's clearance to operate it (issue 24), its sections (documentation,
 * short instruction, logbook, journals) and the department's units of it. The page is the model *in that department* (`useModelHere`); one
 * that is missing says so once, and its sections, which would only fail too, are not asked for.
 */
export function ModelPage() {
  const params = useParams();
  const departmentId = parseId(params.departmentId);
  const modelId = parseId(params.id);
  const here = useModelHere(departmentId, modelId);

  if (here.state === 'missing') {
    return (
      <NotFound
        message={here.message}
        backTo={paths.departments}
        backLabel={equipmentStrings.toDepartments}
      />
    );
  }
  if (here.state === 'failed' || departmentId === undefined) return <LoadError />;
  const model = here.state === 'found' ? here.model : undefined;

  const base = `${paths.departments}/environments/${departmentId}/environment/${modelId}`;
  const tabs = [
    { label: strings.pages.documentation, to: `${base}/documentation` },
    { label: strings.pages.shortInstruction, to: `${base}/short-instruction` },
    { label: strings.pages.maintenanceLogbook, to: `${base}/maintenance-logbook` },
    { label: strings.pages.journal, to: `${base}/journal` },
  ];

  return (
    <Stack spacing={3}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack direction="row" spacing={{ xs: 2, sm: 3 }} sx={{ alignItems: 'center' }}>
          <Box
            role="img"
            aria-label={equipmentStrings.illustration}
            sx={{
              flexShrink: 0,
              width: { xs: 72, sm: 112 },
              height: { xs: 72, sm: 112 },
              borderRadius: 3,
              display: 'grid',
              placeItems: 'center',
              color: 'primary.main',
              background: 'linear-gradient(135deg, #e3f1f8 0%, #d3ece8 100%)',
            }}
          >
            <MonitorHeartOutlined sx={{ fontSize: { xs: 44, sm: 68 } }} />
          </Box>
          <Box sx={{ minWidth: 0 }}>
            <Typography variant="h5" component="h2" sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>
              {model?.name ?? strings.common.loading}
            </Typography>
            {model && (
              <>
                <Typography sx={{ color: 'text.secondary' }}>
                  {equipmentStrings.brand}: {model.brandName}
                </Typography>
                <Typography sx={{ mt: 1, whiteSpace: 'pre-line' }}>{model.description}</Typography>
              </>
            )}
          </Box>
        </Stack>
      </Paper>
      {/* Nothing to say of a model that requires no training. */}
      {model && model.requiredCourseIds.length > 0 && <ModelClearance modelId={model.id} />}
      {model && (
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', xl: 'minmax(0, 1fr) 320px' } }}>
          <Box sx={{ minWidth: 0 }}>
            <NavTabs label={equipmentStrings.sectionsLabel} tabs={tabs} wrap />
            <Box sx={{ pt: 3 }}>
              <Outlet />
            </Box>
          </Box>
          <UnitsList model={model} departmentId={departmentId} />
        </Box>
      )}
    </Stack>
  );
}
