import { Chip } from '@mui/material';

import { adminStrings } from '@/lib/admin-strings';

const text = adminStrings.serviceAccounts;

/** «Активна» or «Отключена»: whether the system may get tokens. */
export function StateChip({ active }: { active: boolean }) {
  return (
    <Chip
      label={active ? text.active : text.disabled}
      color={active ? 'success' : 'default'}
      variant={active ? 'outlined' : 'filled'}
      size="small"
    />
  );
}
