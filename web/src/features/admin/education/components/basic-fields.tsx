import { TextField } from '@mui/material';

import { CountedTextField } from '@/components/counted-text-field';
import { adminStrings } from '@/lib/admin-strings';
import { limits } from '@/lib/limits';

import type { BasicErrors, BasicValues } from '../utils/basic-values';

const text = adminStrings.education;

type BasicFieldsProps = {
  values: BasicValues;
  errors: BasicErrors;
  onChange: (field: keyof BasicValues, value: string) => void;
  disabled: boolean;
};

/** Title, description and deadline of a course or an article. */
export function BasicFields({ values, errors, onChange, disabled }: BasicFieldsProps) {
  return (
    <>
      <CountedTextField
        limit={limits.educationTitle}
        label={text.title}
        value={values.title}
        onChange={(event) => onChange('title', event.target.value)}
        required
        error={errors.title !== undefined}
        helperText={errors.title}
        disabled={disabled}
        fullWidth
      />
      <TextField
        label={text.description}
        value={values.description}
        onChange={(event) => onChange('description', event.target.value)}
        required
        error={errors.description !== undefined}
        helperText={errors.description}
        disabled={disabled}
        fullWidth
        multiline
        minRows={2}
      />
      <TextField
        label={text.deadline}
        type="date"
        value={values.dateDeadline}
        onChange={(event) => onChange('dateDeadline', event.target.value)}
        required
        error={errors.dateDeadline !== undefined}
        helperText={errors.dateDeadline}
        disabled={disabled}
        slotProps={{ inputLabel: { shrink: true } }}
        sx={{ maxWidth: 240 }}
      />
    </>
  );
}
