import ErrorOutline from '@mui/icons-material/ErrorOutline';
import ScheduleOutlined from '@mui/icons-material/ScheduleOutlined';
import { Chip } from '@mui/material';

import { strings } from '@/lib/strings';

import { formatDate, type MaintenanceState } from '../utils/maintenance';

/** A unit's due or overdue maintenance as a chip; nothing when it is in order. */
export function MaintenanceMark({ state, short = false }: { state: MaintenanceState; short?: boolean }) {
  if (state.kind === 'ok') return null;
  const { due } = strings.equipment;
  const date = formatDate(state.nextDue);
  const overdue = state.kind === 'overdue';
  const label = overdue ? due.overdue(date) : due.soon(date);
  return (
    <Chip
      size="small"
      color={overdue ? 'error' : 'warning'}
      variant={overdue ? 'filled' : 'outlined'}
      icon={overdue ? <ErrorOutline /> : <ScheduleOutlined />}
      label={short ? (overdue ? due.overdueShort : due.soonShort) : label}
      title={label}
    />
  );
}
