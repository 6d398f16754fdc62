import AddIcon from '@mui/icons-material/Add';
import { Button } from '@mui/material';
import { useState } from 'react';

import { EquipmentUnitForm } from '@/components/equipment-unit-form';
import { FormDialog } from '@/components/form-dialog';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateUnit } from '../api/equipment-queries';

const formId = 'create-unit';

/** 'Добавить оборудование': a unit of this model in this department (spec §2, §4, §9: 3 s). */
export function CreateUnitDialog({ modelId, departmentId }: { modelId: bigint; departmentId: bigint }) {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateUnit();

  return (
    <>
      <Button variant="contained" startIcon={<AddIcon />} onClick={() => setOpen(true)} fullWidth>
        {equipmentStrings.addUnit}
      </Button>
      <FormDialog
        open={open}
        title={equipmentStrings.addUnitTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={3000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <EquipmentUnitForm
          key={formKey}
          id={formId}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              {
                environmentModelId: modelId,
                departmentDeployment: departmentId,
                serialNumber: values.serialNumber,
                inventoryNumber: values.inventoryNumber,
              },
              {
                onSuccess: () => notify.success(equipmentStrings.created),
                onError: (error) => notify.error(equipmentStrings.createFailed + errorMessage(error)),
              },
            )
          }
        />
      </FormDialog>
    </>
  );
}
