import ErrorOutline from '@mui/icons-material/ErrorOutline';
import ScheduleOutlined from '@mui/icons-material/ScheduleOutlined';
import { Chip } from '@mui/material';

import type { Environment } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';

type Standing = Pick<Environment, 'nextMaintenanceDue' | 'isMaintenanceDueSoon' | 'isMaintenanceOverdue'>;

/** A unit's maintenance standing (computed by the wiki service) as a chip; nothing when in order. */
export function MaintenanceMark({ unit }: { unit: Standing }) {
  if (!unit.isMaintenanceOverdue && !unit.isMaintenanceDueSoon) return null;
  const { due } = equipmentStrings;
  const date = formatDate(unit.nextMaintenanceDue);
  const overdue = unit.isMaintenanceOverdue;
  return (
    <Chip
      size="small"
      color={overdue ? 'error' : 'warning'}
      variant={overdue ? 'filled' : 'outlined'}
      icon={overdue ? <ErrorOutline /> : <ScheduleOutlined />}
      label={overdue ? due.overdue(date) : due.soon(date)}
    />
  );
}

/** A model's mark in a department's list: how many of its units are overdue or due soon. */
export function ModelMaintenanceMark({ overdue, dueSoon }: { overdue: number; dueSoon: number }) {
  const { due } = equipmentStrings;
  if (overdue > 0) {
    return <Chip size="small" color="error" icon={<ErrorOutline />} label={due.overdueCount(overdue)} />;
  }
  if (dueSoon > 0) {
    return (
      <Chip
        size="small"
        color="warning"
        variant="outlined"
        icon={<ScheduleOutlined />}
        label={due.soonCount(dueSoon)}
      />
    );
  }
  return null;
}
