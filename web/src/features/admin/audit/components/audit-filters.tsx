import { useQuery } from '@connectrpc/connect-query';
import { Autocomplete, Button, Grid, MenuItem, TextField } from '@mui/material';

import { DateFilterField } from '@/components/date-filter-field';
import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { adminStrings } from '@/lib/admin-strings';
import { noAuditFilter, type AuditFilter } from '@/lib/audit';
import { fullName } from '@/lib/person-name';

const text = adminStrings.audit;

type AuditFiltersProps = { value: AuditFilter; onChange: (value: AuditFilter) => void };

/** Person, entity, action and period: each narrows the journal on the server. */
export function AuditFilters({ value, onChange }: AuditFiltersProps) {
  // The journal's readers hold UserManagement, which reads every user.
  const users = useQuery(AuthService.method.listUsers).data?.users ?? [];
  const people = users.map((user) => ({ id: String(user.id), label: fullName(user) }));
  const set = (change: Partial<AuditFilter>) => onChange({ ...value, ...change });

  return (
    <Grid
      container
      spacing={2}
      sx={{ mb: 2.5, alignItems: 'center' }}
      component="section"
      aria-label={text.filters}
    >
      <Grid size={{ xs: 12, md: 4 }}>
        <Autocomplete
          options={people}
          value={people.find((person) => person.id === value.userId) ?? null}
          onChange={(_, person) => set({ userId: person?.id ?? '' })}
          isOptionEqualToValue={(option, other) => option.id === other.id}
          getOptionKey={(person) => person.id}
          renderInput={(params) => <TextField {...params} label={text.person} placeholder={text.any} />}
          size="small"
        />
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3 }}>
        <TextField
          select
          label={text.entity}
          value={value.entity}
          onChange={(event) => set({ entity: event.target.value, entityId: '' })}
          fullWidth
          size="small"
        >
          <MenuItem value="">{text.any}</MenuItem>
          {Object.entries(text.entities).map(([kind, label]) => (
            <MenuItem key={kind} value={kind}>
              {label}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 2 }}>
        <TextField
          label={text.entityId}
          value={value.entityId}
          onChange={(event) => set({ entityId: event.target.value.replace(/\D/g, '') })}
          disabled={value.entity === ''}
          fullWidth
          size="small"
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
        />
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3 }}>
        <TextField
          select
          label={text.action}
          value={value.action}
          onChange={(event) => set({ action: event.target.value })}
          fullWidth
          size="small"
        >
          <MenuItem value="">{text.any}</MenuItem>
          {Object.entries(text.actions).map(([action, label]) => (
            <MenuItem key={action} value={action}>
              {label}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3, lg: 2 }}>
        <DateFilterField label={text.dateFrom} value={value.from} onChange={(from) => set({ from })} />
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3, lg: 2 }}>
        <DateFilterField label={text.dateTo} value={value.to} onChange={(to) => set({ to })} />
      </Grid>
      <Grid size={{ xs: 12, md: 'grow' }} sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <Button size="small" onClick={() => onChange(noAuditFilter)}>
          {text.reset}
        </Button>
      </Grid>
    </Grid>
  );
}
