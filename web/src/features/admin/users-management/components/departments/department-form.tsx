import { Stack, TextField } from '@mui/material';

import { MultiSelect } from '@/components/multi-select';
import { adminStrings } from '@/lib/admin-strings';
import { fullName } from '@/lib/person-name';
import { useFormState } from '@/lib/use-form-state';

import { useUsers } from '../../api/auth-queries';

export type DepartmentFormValues = { title: string; userIds: bigint[] };

type DepartmentFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: DepartmentFormValues;
  disabled: boolean;
  onSubmit: (values: DepartmentFormValues) => void;
};

const validate = ({ title }: DepartmentFormValues) => ({
  title: title.trim() === '' ? adminStrings.department.titleRequired : undefined,
});

/** A department's title and members: the create dialog and the department page share it. */
export function DepartmentForm({ id, initial, disabled, onSubmit }: DepartmentFormProps) {
  const { values, set, submit, textField, formRef } = useFormState({ initial, validate });
  const users = useUsers();
  const choices = (users.data?.users ?? []).map((user) => ({ id: user.id, label: fullName(user) }));

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={submit(({ title, userIds }) => onSubmit({ title: title.trim(), userIds }))}
    >
      <TextField
        label={adminStrings.department.title}
        {...textField('title')}
        required
        disabled={disabled}
        fullWidth
      />
      <MultiSelect
        label={adminStrings.department.members}
        options={choices}
        value={values.userIds}
        onChange={(userIds) => set('userIds', userIds)}
        disabled={disabled}
      />
    </Stack>
  );
}
