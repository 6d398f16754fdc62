import { Stack, TextField } from '@mui/material';
import { useState } from 'react';

import { equipmentStrings } from '@/lib/equipment-strings';

export type ModelFormValues = { name: string; brandName: string; description: string };

type Field = keyof ModelFormValues;

type ModelFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: ModelFormValues;
  disabled: boolean;
  onSubmit: (values: ModelFormValues) => void;
};

const equipment = equipmentStrings.admin;
const required: Record<Field, string> = {
  name: equipment.nameRequired,
  brandName: equipment.brandNameRequired,
  description: equipment.descriptionRequired,
};
const labels: Record<Field, string> = {
  name: equipment.name,
  brandName: equipment.brandName,
  description: equipment.description,
};
const fields: Field[] = ['name', 'brandName', 'description'];

/** An equipment model's name, brand and description (spec §5: all three required). */
export function ModelForm({ id, initial, disabled, onSubmit }: ModelFormProps) {
  const [values, setValues] = useState(initial);
  const [missing, setMissing] = useState<ReadonlySet<Field>>(new Set());

  return (
    <Stack
      component="form"
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = {
          name: values.name.trim(),
          brandName: values.brandName.trim(),
          description: values.description.trim(),
        };
        const absent = new Set(fields.filter((field) => trimmed[field] === ''));
        setMissing(absent);
        if (absent.size === 0) onSubmit(trimmed);
      }}
    >
      {fields.map((field) => (
        <TextField
          key={field}
          label={labels[field]}
          value={values[field]}
          onChange={(event) => {
            setValues((current) => ({ ...current, [field]: event.target.value }));
            setMissing((current) => new Set([...current].filter((other) => other !== field)));
          }}
          required
          multiline={field === 'description'}
          minRows={field === 'description' ? 3 : undefined}
          error={missing.has(field)}
          helperText={missing.has(field) ? required[field] : undefined}
          disabled={disabled}
          fullWidth
        />
      ))}
    </Stack>
  );
}
