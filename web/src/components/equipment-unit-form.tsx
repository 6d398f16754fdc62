import { MenuItem, Stack, TextField } from '@mui/material';
import type { ReactNode } from 'react';

import { equipmentStrings } from '@/lib/equipment-strings';
import { useFormState, type FieldErrors } from '@/lib/use-form-state';

export type EquipmentUnitValues = {
  serialNumber: string;
  inventoryNumber: string;
  departmentId: bigint | undefined;
};

type Choice = { id: bigint; label: string };

type EquipmentUnitFormProps = {
  /** Lets the dialog's button submit it. */
  id: string;
  disabled: boolean;
  /** A unit being edited; a new one starts empty. */
  initial?: EquipmentUnitValues;
  /** The departments to deploy the unit in; without them the department is fixed by the page. */
  departments?: Choice[];
  /** Fields of the page that uses the form (the model, in the admin), above the unit's own. */
  children?: ReactNode;
  /**
   * Checks those fields on the same submit as the unit's own, so that every missing one is
   * marked at once; true when they are complete.
   */
  checkChildren?: () => boolean;
  onSubmit: (values: EquipmentUnitValues) => void;
};

const empty: EquipmentUnitValues = { serialNumber: '', inventoryNumber: '', departmentId: undefined };

/** An equipment unit, new or edited (spec §5: serial and inventory numbers required). */
export function EquipmentUnitForm({
  id,
  disabled,
  initial = empty,
  departments,
  children,
  checkChildren,
  onSubmit,
}: EquipmentUnitFormProps) {
  const equipment = equipmentStrings;
  const { values, set, errors, submit, textField, formRef } = useFormState({
    initial,
    validate: (typed: EquipmentUnitValues): FieldErrors<keyof EquipmentUnitValues> => ({
      serialNumber: typed.serialNumber.trim() === '' ? equipment.serialNumberRequired : undefined,
      inventoryNumber: typed.inventoryNumber.trim() === '' ? equipment.inventoryNumberRequired : undefined,
      departmentId:
        departments && typed.departmentId === undefined ? equipment.departmentRequired : undefined,
    }),
  });

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        // The fields above are checked on the same submit, so that every missing one is marked.
        const childrenComplete = checkChildren?.() ?? true;
        submit((typed) => {
          if (!childrenComplete) return;
          onSubmit({
            ...typed,
            serialNumber: typed.serialNumber.trim(),
            inventoryNumber: typed.inventoryNumber.trim(),
          });
        })(event);
      }}
    >
      {children}
      {departments && (
        <TextField
          select
          label={equipment.departmentLabel}
          value={values.departmentId === undefined ? '' : String(values.departmentId)}
          onChange={(event) => set('departmentId', BigInt(event.target.value))}
          required
          error={errors?.departmentId !== undefined}
          helperText={errors?.departmentId}
          disabled={disabled}
          fullWidth
        >
          {departments.map((department) => (
            <MenuItem key={department.id} value={String(department.id)}>
              {department.label}
            </MenuItem>
          ))}
        </TextField>
      )}
      <TextField
        label={equipment.serialNumberLabel}
        {...textField('serialNumber')}
        required
        disabled={disabled}
        fullWidth
      />
      <TextField
        label={equipment.inventoryNumberLabel}
        {...textField('inventoryNumber')}
        required
        disabled={disabled}
        fullWidth
      />
    </Stack>
  );
}
