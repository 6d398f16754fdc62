import MonitorHeartOutlined from '@mui/icons-material/MonitorHeartOutlined';
import QrCode2Outlined from '@mui/icons-material/QrCode2Outlined';
import { Button, ListItemIcon, ListItemText, Stack, Typography } from '@mui/material';
import { Link, useParams } from 'react-router';

import { LinkList, LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { equipmentStrings } from '@/lib/equipment-strings';
import { isClientError } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { useDepartment, useModelsByDepartment } from '../api/equipment-queries';
import { DepartmentClearance } from './department-clearance';
import { ModelMaintenanceMark } from './maintenance-mark';

const collator = new Intl.Collator('ru-RU');

/**
 * Spec §2: the equipment models of a department, each a '+' title linking to its page; for
 * editors and education managers also who of the department is cleared to operate each.
 */
export function EquipmentListPage() {
  const departmentId = parseId(useParams().departmentId);
  const query = useModelsByDepartment(departmentId);
  // An engineer may list the models of any id (an unknown one has none), so the department
  // itself says whether it exists and is the reader's (its breadcrumb asks the same: one call).
  const department = useDepartment(departmentId);
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const educator = useHasRight(Right.EducationManagement) === true;
  const refs = query.data?.environmentModels ?? [];
  const sorted = [...refs].sort((a, b) => collator.compare(a.name, b.name));

  let content;
  if (departmentId === undefined || (department.isError && isClientError(department.error))) {
    content = <LoadError message={equipmentStrings.departmentNotFound} />;
  } else if (query.isError || department.isError) content = <LoadError />;
  else if (query.isPending || department.isPending) content = <Loading />;
  else if (refs.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{equipmentStrings.modelsEmpty}</Typography>;
  } else {
    content = (
      <LinkList>
        {sorted.map((model) => (
          <LinkListItem key={model.id} to={`environment/${model.id}`}>
            <ListItemIcon sx={{ minWidth: 40 }}>
              <MonitorHeartOutlined color="primary" />
            </ListItemIcon>
            <ListItemText primary={`+ ${model.name}`} slotProps={{ primary: { sx: { fontWeight: 500 } } }} />
            <ModelMaintenanceMark overdue={model.unitsOverdue} dueSoon={model.unitsDueSoon} />
          </LinkListItem>
        ))}
      </LinkList>
    );
  }

  return (
    <>
      <PageHeader
        title={strings.pages.equipmentList}
        action={
          editor && (
            <Stack direction="row" spacing={1}>
              <Button component={Link} to="labels" startIcon={<QrCode2Outlined />}>
                {equipmentStrings.labels.open}
              </Button>
            </Stack>
          )
        }
      />
      {content}
      {(editor || educator) && departmentId !== undefined && refs.length > 0 && (
        <DepartmentClearance models={sorted} departmentId={departmentId} />
      )}
    </>
  );
}
