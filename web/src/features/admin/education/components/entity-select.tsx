import { MenuItem, TextField } from '@mui/material';

type EntitySelectProps = {
  label: string;
  /** What 0 (none) is called. */
  noneLabel: string;
  options: { id: bigint; title: string }[];
  value: bigint;
  onChange: (value: bigint) => void;
  disabled: boolean;
};

/** One linked entity or none (an article's test, a test's article). */
export function EntitySelect({ label, noneLabel, options, value, onChange, disabled }: EntitySelectProps) {
  return (
    <TextField
      select
      label={label}
      value={String(value)}
      onChange={(event) => onChange(BigInt(event.target.value))}
      disabled={disabled}
      fullWidth
    >
      <MenuItem value="0">{noneLabel}</MenuItem>
      {options.map((option) => (
        <MenuItem key={option.id} value={String(option.id)}>
          {option.title}
        </MenuItem>
      ))}
    </TextField>
  );
}
