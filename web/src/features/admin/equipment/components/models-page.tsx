import MonitorHeartOutlined from '@mui/icons-material/MonitorHeartOutlined';
import { ListItemIcon, ListItemText, Stack, Typography } from '@mui/material';

import { LetterGroups } from '@/components/letter-groups';
import { LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { equipmentStrings } from '@/lib/equipment-strings';
import { groupByFirstLetter } from '@/lib/group-by-letter';
import { strings } from '@/lib/strings';

import { useModels } from '../api/wiki-queries';
import { CreateModelDialog } from './create-model-dialog';
import { CreateUnitDialog } from './create-unit-dialog';

/** Spec §2: every equipment model, grouped by the first letter of its name. */
export function ModelsPage() {
  const query = useModels();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError message={equipmentStrings.admin.loadFailed} />;
  else if (query.data.environmentModels.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{equipmentStrings.admin.empty}</Typography>;
  } else {
    content = (
      <LetterGroups
        groups={groupByFirstLetter(query.data.environmentModels, (model) => model.name)}
        renderItem={(model) => (
          <LinkListItem key={model.id} to={`${paths.adminEquipmentModels}/${model.id}`}>
            <ListItemIcon sx={{ minWidth: 40 }}>
              <MonitorHeartOutlined color="primary" />
            </ListItemIcon>
            <ListItemText
              primary={model.name}
              secondary={`${model.brandName} · ${equipmentStrings.admin.unitCount(model.environments.length)}`}
            />
          </LinkListItem>
        )}
      />
    );
  }

  return (
    <>
      <PageHeader
        title={strings.pages.adminEquipmentModels}
        action={
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
            <CreateUnitDialog />
            <CreateModelDialog />
          </Stack>
        }
      />
      {content}
    </>
  );
}
