import {
  Checkbox,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormLabel,
  Grid,
  MenuItem,
  TextField,
} from '@mui/material';

import { Loading, LoadError } from '@/components/load-state';
import { MultiSelect } from '@/components/multi-select';
import { adminStrings } from '@/lib/admin-strings';
import { rightLabel } from '@/lib/session/rights';
import { strings } from '@/lib/strings';
import { useFormState, type FieldErrors } from '@/lib/use-form-state';

import { useUserFormChoices } from '../../api/auth-queries';
import type { UserFormValues } from '../../utils/user-form-values';

type TextKey = 'name' | 'surname' | 'lastName' | 'login' | 'password' | 'email' | 'employeeNumber';

const text = adminStrings.user;

// Spec §5: editing requires name, surname and login; the create form marks nothing and
// shows the server's refusal instead.
const requiredOnEdit: [TextKey, string][] = [
  ['name', text.nameRequired],
  ['surname', text.surnameRequired],
  ['login', text.loginRequired],
];

type UserFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  mode: 'create' | 'edit';
  initial: UserFormValues;
  disabled: boolean;
  onSubmit: (values: UserFormValues) => void;
};

/** A user's profile, links and rights: the create dialog and the user page share it. */
export function UserForm({ id, mode, initial, disabled, onSubmit }: UserFormProps) {
  const { values, set, submit, textField, formRef } = useFormState({
    initial,
    validate: (typed: UserFormValues): FieldErrors<TextKey> =>
      mode === 'edit'
        ? Object.fromEntries(requiredOnEdit.filter(([field]) => typed[field].trim() === ''))
        : {},
  });
  const choices = useUserFormChoices();

  if (choices.isError) return <LoadError message={strings.errors.formLoadFailed} />;
  if (choices.isPending) return <Loading />;

  const hints: Partial<Record<TextKey, string>> = {
    password: mode === 'edit' ? text.passwordUnchanged : undefined,
    employeeNumber: text.employeeNumberHint,
  };
  const field = (name: TextKey, label: string, extra: { type?: string; autoComplete?: string } = {}) => (
    <TextField
      label={label}
      {...textField(name, hints[name])}
      required={mode === 'edit' && requiredOnEdit.some(([required]) => required === name)}
      disabled={disabled}
      fullWidth
      {...extra}
    />
  );

  const toggleRight = (rightId: bigint, on: boolean) =>
    set('rightIds', on ? [...values.rightIds, rightId] : values.rightIds.filter((held) => held !== rightId));

  return (
    <Grid
      component="form"
      ref={formRef}
      id={id}
      noValidate
      container
      spacing={2.5}
      onSubmit={submit(onSubmit)}
    >
      <Grid size={{ xs: 12, sm: 4 }}>{field('surname', text.surname)}</Grid>
      <Grid size={{ xs: 12, sm: 4 }}>{field('name', text.name)}</Grid>
      <Grid size={{ xs: 12, sm: 4 }}>{field('lastName', text.lastName)}</Grid>
      <Grid size={{ xs: 12, sm: 6 }}>{field('login', text.login, { autoComplete: 'off' })}</Grid>
      <Grid size={{ xs: 12, sm: 6 }}>
        {field('password', text.password, { type: 'password', autoComplete: 'new-password' })}
      </Grid>
      <Grid size={{ xs: 12, sm: 6 }}>{field('email', text.email, { type: 'email' })}</Grid>
      <Grid size={{ xs: 12, sm: 6 }}>
        {field('employeeNumber', text.employeeNumber, { autoComplete: 'off' })}
      </Grid>
      <Grid size={12}>
        <TextField
          select
          label={text.status}
          value={String(values.statusId)}
          onChange={(event) => set('statusId', BigInt(event.target.value))}
          disabled={disabled}
          fullWidth
        >
          <MenuItem value="0">{text.noStatus}</MenuItem>
          {choices.statuses.map((status) => (
            <MenuItem key={status.id} value={String(status.id)}>
              {status.name}
            </MenuItem>
          ))}
        </TextField>
      </Grid>
      <Grid size={12}>
        <MultiSelect
          label={text.positions}
          options={choices.positions.map((position) => ({ id: position.id, label: position.title }))}
          value={values.positionIds}
          onChange={(ids) => set('positionIds', ids)}
          disabled={disabled}
        />
      </Grid>
      <Grid size={12}>
        <MultiSelect
          label={text.departments}
          options={choices.departments.map((department) => ({ id: department.id, label: department.title }))}
          value={values.departmentIds}
          onChange={(ids) => set('departmentIds', ids)}
          disabled={disabled}
        />
      </Grid>
      <Grid size={12}>
        <FormControl component="fieldset" variant="standard" disabled={disabled}>
          <FormLabel component="legend">{text.rights}</FormLabel>
          <FormGroup>
            {choices.rights.map((right) => (
              <FormControlLabel
                key={right.id}
                label={rightLabel(right.name)}
                control={
                  <Checkbox
                    checked={values.rightIds.includes(right.id)}
                    onChange={(event) => toggleRight(right.id, event.target.checked)}
                  />
                }
              />
            ))}
          </FormGroup>
        </FormControl>
      </Grid>
    </Grid>
  );
}
