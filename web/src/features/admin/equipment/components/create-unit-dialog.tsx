import AddIcon from '@mui/icons-material/Add';
import { Button, MenuItem, TextField } from '@mui/material';
import { useState } from 'react';

import { EquipmentUnitForm } from '@/components/equipment-unit-form';
import { FormDialog } from '@/components/form-dialog';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateUnit, useDepartments, useModels } from '../api/wiki-queries';

const formId = 'admin-create-unit';
const collator = new Intl.Collator('ru-RU');

/**
 * A new equipment unit: of the model given (the model's page), or of one chosen here (the
 * list). Spec §5: serial and inventory numbers required; §9: closes 3 s after success.
 */
export function CreateUnitDialog({ modelId }: { modelId?: bigint }) {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const [chosenModel, setChosenModel] = useState<bigint | undefined>(undefined);
  const [modelMissing, setModelMissing] = useState(false);
  const create = useCreateUnit();
  const departments = useDepartments().data?.departments ?? [];
  const models = useModels().data?.environmentModels ?? [];
  const disabled = create.isPending || create.isSuccess;
  const equipment = equipmentStrings.admin;

  return (
    <>
      <Button
        variant={modelId === undefined ? 'outlined' : 'contained'}
        startIcon={<AddIcon />}
        onClick={() => setOpen(true)}
      >
        {equipment.createUnit}
      </Button>
      <FormDialog
        open={open}
        title={equipment.createUnitTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={3000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          setChosenModel(undefined);
          create.reset();
        }}
      >
        <EquipmentUnitForm
          key={formKey}
          id={formId}
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
            create.mutate(
              {
                environmentModelId,
                departmentDeployment: values.departmentId,
                serialNumber: values.serialNumber,
                inventoryNumber: values.inventoryNumber,
              },
              {
                onSuccess: () => notify.success(equipmentStrings.created),
                onError: (error) => notify.error(equipmentStrings.createFailed + errorMessage(error)),
              },
            );
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
      </FormDialog>
    </>
  );
}
