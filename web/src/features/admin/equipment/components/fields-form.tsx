import { MenuItem, Stack, TextField } from '@mui/material';
import { useState } from 'react';

import { useDraftState } from '@/lib/unsaved';

import { checkRequired, startValues, type FormField, type FormValues } from '../utils/fields-form';

type FieldsFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  fields: readonly FormField[];
  initial?: FormValues;
  disabled: boolean;
  /** Called with every value trimmed, once no required field is blank. */
  onSubmit: (values: FormValues) => void;
};

/** A form of text fields (or choices); a blank required field turns red with its message. */
export function FieldsForm({ id, fields, initial, disabled, onSubmit }: FieldsFormProps) {
  const [values, setValues] = useDraftState(() => startValues(fields, initial));
  const [missing, setMissing] = useState<ReadonlySet<string>>(new Set());

  return (
    <Stack
      component="form"
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        const checked = checkRequired(fields, values);
        setMissing(checked.missing);
        if (checked.missing.size === 0) onSubmit(checked.values);
      }}
    >
      {fields.map((field) => {
        const blank = missing.has(field.name);
        return (
          <TextField
            key={field.name}
            label={field.label}
            value={values[field.name] ?? ''}
            onChange={(event) => {
              setValues((current) => ({ ...current, [field.name]: event.target.value }));
              setMissing((current) => new Set([...current].filter((name) => name !== field.name)));
            }}
            required={field.required !== undefined}
            select={field.options !== undefined}
            multiline={field.multiline}
            minRows={field.multiline ? 3 : undefined}
            error={blank}
            helperText={blank ? field.required : field.helperText}
            disabled={disabled}
            fullWidth
          >
            {field.options?.map((option) => (
              <MenuItem key={option.value} value={option.value}>
                {option.label}
              </MenuItem>
            ))}
          </TextField>
        );
      })}
    </Stack>
  );
}
