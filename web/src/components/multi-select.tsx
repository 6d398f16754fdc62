import { Autocomplete, createFilterOptions, TextField } from '@mui/material';

import { wrappingChip } from './wrapping-chip';

/** `notOffered`: shown while chosen, but not in the list to choose from (a blocked person). */
export type Choice = { id: bigint; label: string; notOffered?: boolean };

const byTypedText = createFilterOptions<Choice>();

type MultiSelectProps = {
  label: string;
  options: Choice[];
  /** Ids of the chosen options. */
  value: bigint[];
  onChange: (value: bigint[]) => void;
  disabled?: boolean;
};

/** Several entities chosen from a searchable list (staff of a department, a user's positions). */
export function MultiSelect({ label, options, value, onChange, disabled }: MultiSelectProps) {
  return (
    <Autocomplete
      multiple
      disableCloseOnSelect
      filterSelectedOptions
      disabled={disabled}
      options={options}
      value={options.filter((option) => value.includes(option.id))}
      onChange={(_, chosen) => onChange(chosen.map((option) => option.id))}
      filterOptions={(choices, state) =>
        byTypedText(
          choices.filter((choice) => !choice.notOffered),
          state,
        )
      }
      getOptionLabel={(option) => option.label}
      isOptionEqualToValue={(option, other) => option.id === other.id}
      getOptionKey={(option) => String(option.id)}
      renderInput={(params) => <TextField {...params} label={label} />}
      slotProps={{ chip: { sx: wrappingChip } }}
    />
  );
}
