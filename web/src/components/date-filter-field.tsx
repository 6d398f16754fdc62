import { TextField } from '@mui/material';

/** A filter's day (`YYYY-MM-DD`, empty for none), as the statistics and the audit log filter by a period. */
export function DateFilterField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (day: string) => void;
}) {
  return (
    <TextField
      label={label}
      type="date"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      fullWidth
      size="small"
      slotProps={{ inputLabel: { shrink: true } }}
    />
  );
}
