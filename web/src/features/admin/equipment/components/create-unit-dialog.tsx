import { MenuItem, TextField } from '@mui/material';
import { useState } from 'react';

import { CreateDialog } from '@/components/create-dialog';
import { EquipmentUnitForm } from '@/components/equipment-unit-form';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';

import { useCreateUnit, useDepartments, useModels } from '../api/wiki-queries';

const collator = new Intl.Collator('ru-RU');
const equipment = equipmentStrings.admin;

type NewUnit = {
  environmentModelId: bigint;
  departmentDeployment: bigint;
  serialNumber: string;
  inventoryNumber: string;
};

type UnitFormProps = {
  id: string;
  disabled: boolean;
  /** The model of the page; without it the form asks for one. */
  modelId?: bigint;
  onSubmit: (unit: NewUnit) => void;
};

/** The unit's fields, with a choice of model when the page has none. */
function NewUnitForm({ id, disabled, modelId, onSubmit }: UnitFormProps) {
  const [chosenModel, setChosenModel] = useState<bigint | undefined>(undefined);
  const [modelMissing, setModelMissing] = useState(false);
  const departments = useDepartments().data?.departments ?? [];
  const models = useModels().data?.environmentModels ?? [];

  return (
    <EquipmentUnitForm
      id={id}
      disabled={disabled}
      departments={[...departments]
        .sort((a, b) => collator.compare(a.title, b.title))
        .map((department) => ({ id: department.id, label: department.title }))}
      checkChildren={() => {
        const missing = modelId === undefined && chosenModel === undefined;
        setModelMissing(missing);
        return !missing;
      }}
      onSubmit={(values) => {
        const environmentModelId = modelId ?? chosenModel;
        if (environmentModelId === undefined || values.departmentId === undefined) return;
        onSubmit({
          environmentModelId,
          departmentDeployment: values.departmentId,
          serialNumber: values.serialNumber,
          inventoryNumber: values.inventoryNumber,
        });
      }}
    >
      {modelId === undefined && (
        <TextField
          select
          label={equipment.model}
          value={chosenModel === undefined ? '' : String(chosenModel)}
          onChange={(event) => {
            setChosenModel(BigInt(event.target.value));
            setModelMissing(false);
          }}
          required
          error={modelMissing}
          helperText={modelMissing ? equipment.modelRequired : undefined}
          disabled={disabled}
          fullWidth
          // A long model name wraps inside a menu no wider than the dialog, not across the screen.
          slotProps={{
            select: {
              MenuProps: { slotProps: { paper: { sx: { maxWidth: 'min(552px, calc(100% - 32px))' } } } },
            },
          }}
        >
          {[...models]
            .sort((a, b) => collator.compare(a.name, b.name))
            .map((model) => (
              <MenuItem
                key={model.id}
                value={String(model.id)}
                sx={{ whiteSpace: 'normal', overflowWrap: 'anywhere' }}
              >
                {model.name}
              </MenuItem>
            ))}
        </TextField>
      )}
    </EquipmentUnitForm>
  );
}

/**
 * A new equipment unit: of the model given (the model's page), or of one chosen here (the
 * list). Spec §5: serial and inventory numbers required; §9: closes 3 s after success.
 */
export function CreateUnitDialog({ modelId }: { modelId?: bigint }) {
  const create = useCreateUnit();
  return (
    <CreateDialog
      formId="admin-create-unit"
      text={{
        create: equipment.createUnit,
        createTitle: equipment.createUnitTitle,
        created: equipmentStrings.created,
      }}
      failed={(error) => equipmentStrings.createFailed + errorMessage(error)}
      closeDelayMs={3000}
      create={create.mutateAsync}
      button={{ variant: modelId === undefined ? 'outlined' : 'contained' }}
    >
      {(form) => <NewUnitForm {...form} modelId={modelId} />}
    </CreateDialog>
  );
}
