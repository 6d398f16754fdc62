import { Stack, TextField } from '@mui/material';
import { useState } from 'react';

import { MultiSelect } from '@/components/multi-select';
import { fullName } from '@/lib/person-name';
import { strings } from '@/lib/strings';
import { useDraftState } from '@/lib/unsaved';

import { useUsers } from '../../api/auth-queries';

export type DepartmentFormValues = { title: string; userIds: bigint[] };

type DepartmentFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: DepartmentFormValues;
  disabled: boolean;
  onSubmit: (values: DepartmentFormValues) => void;
};

/** A department's title and members: the create dialog and the department page share it. */
export function DepartmentForm({ id, initial, disabled, onSubmit }: DepartmentFormProps) {
  const [title, setTitle] = useDraftState(initial.title);
  const [userIds, setUserIds] = useDraftState(initial.userIds);
  const [titleMissing, setTitleMissing] = useState(false);
  const users = useUsers();
  const choices = (users.data?.users ?? []).map((user) => ({ id: user.id, label: fullName(user) }));

  return (
    <Stack
      component="form"
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = title.trim();
        if (trimmed === '') setTitleMissing(true);
        else onSubmit({ title: trimmed, userIds });
      }}
    >
      <TextField
        label={strings.admin.department.title}
        value={title}
        onChange={(event) => {
          setTitle(event.target.value);
          setTitleMissing(false);
        }}
        required
        error={titleMissing}
        helperText={titleMissing ? strings.admin.department.titleRequired : undefined}
        disabled={disabled}
        fullWidth
      />
      <MultiSelect
        label={strings.admin.department.members}
        options={choices}
        value={userIds}
        onChange={setUserIds}
        disabled={disabled}
      />
    </Stack>
  );
}
