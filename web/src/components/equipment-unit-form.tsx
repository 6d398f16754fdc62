import { MenuItem, Stack, TextField } from '@mui/material';
import { useState, type ReactNode } from 'react';

import { equipmentStrings } from '@/lib/equipment-strings';
import { useDraftState } from '@/lib/unsaved';

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

type Field = 'serialNumber' | 'inventoryNumber' | 'departmentId';

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
  const [serialNumber, setSerialNumber] = useDraftState(initial.serialNumber);
  const [inventoryNumber, setInventoryNumber] = useDraftState(initial.inventoryNumber);
  const [departmentId, setDepartmentId] = useDraftState(initial.departmentId);
  const [missing, setMissing] = useState<ReadonlySet<Field>>(new Set());
  const equipment = equipmentStrings;

  const clear = (field: Field) =>
    setMissing((fields) => new Set([...fields].filter((other) => other !== field)));

  return (
    <Stack
      component="form"
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        const values = {
          serialNumber: serialNumber.trim(),
          inventoryNumber: inventoryNumber.trim(),
          departmentId,
        };
        const absent = new Set<Field>();
        if (values.serialNumber === '') absent.add('serialNumber');
        if (values.inventoryNumber === '') absent.add('inventoryNumber');
        if (departments && departmentId === undefined) absent.add('departmentId');
        setMissing(absent);
        const childrenComplete = checkChildren?.() ?? true;
        if (absent.size === 0 && childrenComplete) onSubmit(values);
      }}
    >
      {children}
      {departments && (
        <TextField
          select
          label={equipment.departmentLabel}
          value={departmentId === undefined ? '' : String(departmentId)}
          onChange={(event) => {
            setDepartmentId(BigInt(event.target.value));
            clear('departmentId');
          }}
          required
          error={missing.has('departmentId')}
          helperText={missing.has('departmentId') ? equipment.departmentRequired : undefined}
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
        value={serialNumber}
        onChange={(event) => {
          setSerialNumber(event.target.value);
          clear('serialNumber');
        }}
        required
        error={missing.has('serialNumber')}
        helperText={missing.has('serialNumber') ? equipment.serialNumberRequired : undefined}
        disabled={disabled}
        fullWidth
      />
      <TextField
        label={equipment.inventoryNumberLabel}
        value={inventoryNumber}
        onChange={(event) => {
          setInventoryNumber(event.target.value);
          clear('inventoryNumber');
        }}
        required
        error={missing.has('inventoryNumber')}
        helperText={missing.has('inventoryNumber') ? equipment.inventoryNumberRequired : undefined}
        disabled={disabled}
        fullWidth
      />
    </Stack>
  );
}
