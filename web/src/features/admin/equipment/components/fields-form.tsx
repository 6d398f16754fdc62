import { MenuItem, Stack, TextField } from '@mui/material';

import { useFormState } from '@/lib/use-form-state';

import {
  checkRequired,
  requiredMessages,
  startValues,
  type FormField,
  type FormValues,
} from '../utils/fields-form';

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
  const { submit, textField, formRef } = useFormState({
    initial: () => startValues(fields, initial),
    validate: (typed: FormValues) => requiredMessages(fields, typed),
  });

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={submit((typed) => onSubmit(checkRequired(fields, typed).values))}
    >
      {fields.map((field) => (
        <TextField
          key={field.name}
          label={field.label}
          {...textField(field.name, field.helperText)}
          required={field.required !== undefined}
          select={field.options !== undefined}
          multiline={field.multiline}
          minRows={field.multiline ? 3 : undefined}
          disabled={disabled}
          fullWidth
        >
          {field.options?.map((option) => (
            <MenuItem key={option.value} value={option.value}>
              {option.label}
            </MenuItem>
          ))}
        </TextField>
      ))}
    </Stack>
  );
}
