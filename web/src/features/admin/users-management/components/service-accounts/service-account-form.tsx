import {
  Autocomplete,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  Stack,
  TextField,
} from '@mui/material';

import { CountedTextField } from '@/components/counted-text-field';
import { LoadError } from '@/components/load-state';
import { adminStrings } from '@/lib/admin-strings';
import { lengthError, limits } from '@/lib/limits';
import { fullName } from '@/lib/person-name';
import { strings } from '@/lib/strings';
import { useFormState } from '@/lib/use-form-state';

import { useUsers } from '../../api/auth-queries';
import { scopes, type ServiceAccountValues } from '../../api/service-account-queries';
import { scopeTitle } from '../../utils/service-accounts';

const text = adminStrings.serviceAccounts;

type FieldKey = 'name' | 'description' | 'scopes' | 'ownerId';

const validate = (values: ServiceAccountValues): Partial<Record<FieldKey, string>> => ({
  name:
    values.name.trim() === ''
      ? text.nameRequired
      : lengthError(values.name.trim(), limits.serviceAccountName),
  description: lengthError(values.description.trim(), limits.serviceAccountDescription),
  scopes: values.scopes.length === 0 ? text.scopesRequired : undefined,
  ownerId: values.ownerId > 0 ? undefined : text.ownerRequired,
});

type ServiceAccountFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: ServiceAccountValues;
  disabled: boolean;
  onSubmit: (values: ServiceAccountValues) => void;
};

/**
 * An external system's name, description, scopes (a checkbox each, at least one) and the
 * person answerable for it: the create dialog and the account's page share it.
 */
export function ServiceAccountForm({ id, initial, disabled, onSubmit }: ServiceAccountFormProps) {
  const { values, set, errors, submit, textField, formRef } = useFormState({ initial, validate });
  const users = useUsers();

  if (users.isError) return <LoadError message={strings.errors.formLoadFailed} />;

  const people = (users.data?.users ?? []).map((user) => ({ id: Number(user.id), label: fullName(user) }));
  const owner = people.find((person) => person.id === values.ownerId) ?? null;
  const toggle = (scope: string, on: boolean) =>
    set(
      'scopes',
      scopes.filter((known) => (known === scope ? on : values.scopes.includes(known))),
    );

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={submit(({ name, description, ...rest }) =>
        onSubmit({ name: name.trim(), description: description.trim(), ...rest }),
      )}
    >
      <CountedTextField
        limit={limits.serviceAccountName}
        label={text.name}
        {...textField('name')}
        required
        disabled={disabled}
        fullWidth
      />
      <CountedTextField
        limit={limits.serviceAccountDescription}
        label={text.description}
        {...textField('description', text.descriptionHint)}
        disabled={disabled}
        fullWidth
        multiline
        minRows={2}
      />
      <FormControl component="fieldset" error={errors?.scopes !== undefined} disabled={disabled} required>
        <FormLabel component="legend">{text.scopes}</FormLabel>
        <FormGroup>
          {scopes.map((scope, index) => (
            <FormControlLabel
              key={scope}
              label={scopeTitle(scope)}
              control={
                <Checkbox
                  checked={values.scopes.includes(scope)}
                  onChange={(event) => toggle(scope, event.target.checked)}
                  slotProps={{
                    input: { 'aria-invalid': index === 0 && errors?.scopes !== undefined ? true : undefined },
                  }}
                />
              }
            />
          ))}
        </FormGroup>
        <FormHelperText>{errors?.scopes ?? text.scopesHint}</FormHelperText>
      </FormControl>
      <Autocomplete
        options={people}
        value={owner}
        loading={users.isPending}
        disabled={disabled}
        onChange={(_, chosen) => set('ownerId', chosen?.id ?? 0)}
        getOptionLabel={(person) => person.label}
        getOptionKey={(person) => person.id}
        isOptionEqualToValue={(person, other) => person.id === other.id}
        noOptionsText={text.noOwnerChoices}
        loadingText={strings.common.loading}
        renderInput={(params) => (
          <TextField
            {...params}
            label={text.owner}
            required
            error={errors?.ownerId !== undefined}
            helperText={errors?.ownerId}
          />
        )}
      />
    </Stack>
  );
}
