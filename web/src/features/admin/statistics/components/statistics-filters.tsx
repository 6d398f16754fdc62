import { Autocomplete, Button, Grid, MenuItem, TextField } from '@mui/material';

import { DateFilterField } from '@/components/date-filter-field';
import { adminStrings } from '@/lib/admin-strings';

import { useDepartmentsAndPeople } from '../../api/people-queries';
import { noFilter, useTestChoices, type StatisticsFilter } from '../api/statistics-queries';

const text = adminStrings.statistics;

type StatisticsFiltersProps = { value: StatisticsFilter; onChange: (value: StatisticsFilter) => void };

/** Test, department, person and period: each narrows the results on the server. */
export function StatisticsFilters({ value, onChange }: StatisticsFiltersProps) {
  const tests = useTestChoices().data?.tests ?? [];
  const { departments, people } = useDepartmentsAndPeople();
  const choosable = Array.from(people.values()).filter(
    (person) => value.departmentId === 0n || person.departmentIds.includes(value.departmentId),
  );
  const set = (change: Partial<StatisticsFilter>) => onChange({ ...value, ...change });

  return (
    <Grid
      container
      spacing={2}
      sx={{ mb: 2.5, alignItems: 'center' }}
      component="section"
      aria-label={text.filters}
    >
      <Grid size={{ xs: 12, md: 4 }}>
        <TextField
          select
          label={text.test}
          value={String(value.testId)}
          onChange={(event) => set({ testId: BigInt(event.target.value) })}
          fullWidth
          size="small"
        >
          <MenuItem value="0">{text.any}</MenuItem>
          {tests.map((test) => (
            <MenuItem key={test.id} value={String(test.id)}>
              {test.title}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={{ xs: 12, md: 4 }}>
        <TextField
          select
          label={text.department}
          value={String(value.departmentId)}
          onChange={(event) => set({ departmentId: BigInt(event.target.value) })}
          fullWidth
          size="small"
        >
          <MenuItem value="0">{text.any}</MenuItem>
          {departments.map((department) => (
            <MenuItem key={department.id} value={String(department.id)}>
              {department.title}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={{ xs: 12, md: 4 }}>
        <Autocomplete
          options={choosable}
          value={people.get(value.userId) ?? null}
          onChange={(_, person) => set({ userId: person?.id ?? 0n })}
          getOptionLabel={(person) => person.label}
          isOptionEqualToValue={(option, other) => option.id === other.id}
          getOptionKey={(person) => String(person.id)}
          renderInput={(params) => <TextField {...params} label={text.person} placeholder={text.any} />}
          size="small"
        />
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3, lg: 2 }}>
        <DateFilterField
          label={text.dateFrom}
          value={value.dateFrom}
          onChange={(dateFrom) => set({ dateFrom })}
        />
      </Grid>
      <Grid size={{ xs: 12, sm: 6, md: 3, lg: 2 }}>
        <DateFilterField label={text.dateTo} value={value.dateTo} onChange={(dateTo) => set({ dateTo })} />
      </Grid>
      <Grid size={{ xs: 12 }} sx={{ display: 'flex', justifyContent: 'flex-end', mt: -1 }}>
        <Button size="small" onClick={() => onChange(noFilter)}>
          {text.reset}
        </Button>
      </Grid>
    </Grid>
  );
}
