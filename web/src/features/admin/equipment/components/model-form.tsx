import { equipmentStrings } from '@/lib/equipment-strings';

import type { FormField } from '../utils/fields-form';
import { FieldsForm } from './fields-form';

export type ModelFormValues = { name: string; brandName: string; description: string };

type ModelFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: ModelFormValues;
  disabled: boolean;
  onSubmit: (values: ModelFormValues) => void;
};

const equipment = equipmentStrings.admin;
const fields: FormField[] = [
  { name: 'name', label: equipment.name, required: equipment.nameRequired },
  { name: 'brandName', label: equipment.brandName, required: equipment.brandNameRequired },
  {
    name: 'description',
    label: equipment.description,
    required: equipment.descriptionRequired,
    multiline: true,
  },
];

/** An equipment model's name, brand and description (spec §5: all three required). */
export function ModelForm({ id, initial, disabled, onSubmit }: ModelFormProps) {
  return (
    <FieldsForm
      id={id}
      fields={fields}
      initial={initial}
      disabled={disabled}
      onSubmit={({ name = '', brandName = '', description = '' }) =>
        onSubmit({ name, brandName, description })
      }
    />
  );
}
