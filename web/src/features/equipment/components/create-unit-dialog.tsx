import { CreateDialog } from '@/components/create-dialog';
import { EquipmentUnitForm } from '@/components/equipment-unit-form';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';

import { useCreateUnit } from '../api/equipment-queries';

/** 'Добавить оборудование': a unit of this model in this department (spec §2, §4, §9: 3 s). */
export function CreateUnitDialog({ modelId, departmentId }: { modelId: bigint; departmentId: bigint }) {
  const create = useCreateUnit();
  return (
    <CreateDialog
      formId="create-unit"
      text={{
        create: equipmentStrings.addUnit,
        createTitle: equipmentStrings.addUnitTitle,
        created: equipmentStrings.created,
      }}
      failed={(error) => equipmentStrings.createFailed + errorMessage(error)}
      closeDelayMs={3000}
      create={(values: { serialNumber: string; inventoryNumber: string }) =>
        create.mutateAsync({
          environmentModelId: modelId,
          departmentDeployment: departmentId,
          serialNumber: values.serialNumber,
          inventoryNumber: values.inventoryNumber,
        })
      }
      button={{ fullWidth: true }}
    >
      {(form) => <EquipmentUnitForm {...form} />}
    </CreateDialog>
  );
}
