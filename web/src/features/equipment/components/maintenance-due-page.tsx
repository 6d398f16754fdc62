import { Alert, Link as MuiLink, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link } from 'react-router';

import { DataTable } from '@/components/data-table';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { equipmentStrings } from '@/lib/equipment-strings';
import { strings } from '@/lib/strings';

import { useDepartments, useMaintenanceDue } from '../api/equipment-queries';
import { MaintenanceMark } from './maintenance-mark';

const { due } = equipmentStrings;

/**
 * Beyond the spec: for equipment editors, every unit in the departments they can see whose
 * maintenance is overdue or due within 30 days, the most urgent first (the wiki service's order).
 */
export function MaintenanceDuePage() {
  const query = useMaintenanceDue();
  const departments = new Map(
    (useDepartments().data?.departments ?? []).map((department) => [department.id, department.title]),
  );

  let content;
  if (query.isError) content = <LoadError />;
  else if (query.isPending) content = <Loading />;
  else if (query.data.units.length === 0) content = <Alert severity="success">{due.empty}</Alert>;
  else {
    content = (
      <DataTable label={strings.pages.maintenanceDue} framed>
        <TableHead>
          <TableRow>
            <TableCell>{due.model}</TableCell>
            <TableCell>{due.unit}</TableCell>
            <TableCell>{due.department}</TableCell>
            <TableCell>{due.nextDue}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {query.data.units.flatMap(({ environment: unit, environmentModelName }) =>
            unit
              ? [
                  <TableRow key={unit.id}>
                    <TableCell>
                      <MuiLink
                        component={Link}
                        to={`${paths.departments}/environments/${unit.departmentId}/environment/${unit.environmentModelId}/maintenance-logbook?unit=${unit.id}`}
                      >
                        {environmentModelName}
                      </MuiLink>
                    </TableCell>
                    <TableCell>{unit.inventoryNumber}</TableCell>
                    <TableCell>{departments.get(unit.departmentId) ?? String(unit.departmentId)}</TableCell>
                    <TableCell>
                      <MaintenanceMark unit={unit} />
                    </TableCell>
                  </TableRow>,
                ]
              : [],
          )}
        </TableBody>
      </DataTable>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.maintenanceDue} />
      <Typography sx={{ color: 'text.secondary', mb: 2 }}>{due.pageHint}</Typography>
      {content}
    </>
  );
}
