import EditOutlined from '@mui/icons-material/EditOutlined';
import RemoveCircleOutline from '@mui/icons-material/RemoveCircleOutline';
import { IconButton, ListItem, ListItemText, Stack } from '@mui/material';
import { useState } from 'react';

import { EquipmentUnitForm } from '@/components/equipment-unit-form';
import { FormDialog } from '@/components/form-dialog';
import type { Environment } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useRetireUnit, useUpdateUnit } from '../api/wiki-queries';

type Choice = { id: bigint; label: string };

/** One unit of a model in the admin: its numbers and department, edited or retired here. */
export function UnitRow({ unit, departments }: { unit: Environment; departments: Choice[] }) {
  const [editing, setEditing] = useState(false);
  const update = useUpdateUnit();
  const retire = useRetireUnit();
  const equipment = equipmentStrings.admin;
  const formId = `unit-${unit.id}`;
  const department = departments.find((choice) => choice.id === unit.departmentId)?.label;

  return (
    <ListItem
      divider
      disableGutters
      secondaryAction={
        <Stack direction="row">
          <IconButton aria-label={equipment.editUnit(unit.inventoryNumber)} onClick={() => setEditing(true)}>
            <EditOutlined />
          </IconButton>
          <IconButton
            edge="end"
            aria-label={equipment.retireUnit(unit.inventoryNumber)}
            disabled={retire.isPending}
            onClick={() => {
              if (!window.confirm(equipment.retireConfirm(unit.inventoryNumber))) return;
              retire.mutate(
                { id: unit.id },
                {
                  onSuccess: () => notify.success(equipment.retired),
                  onError: (error) => notify.error(errorMessage(error)),
                },
              );
            }}
          >
            <RemoveCircleOutline />
          </IconButton>
        </Stack>
      }
      sx={{ pr: 12 }}
    >
      <ListItemText
        primary={equipmentStrings.inventoryNumber(unit.inventoryNumber)}
        secondary={`${equipmentStrings.serialNumber(unit.serialNumber)} · ${equipment.department(
          department ?? String(unit.departmentId),
        )}`}
      />
      <FormDialog
        open={editing}
        title={equipment.editUnitTitle}
        formId={formId}
        submitLabel={strings.common.save}
        pending={update.isPending}
        succeeded={update.isSuccess}
        closeDelayMs={1000}
        onClose={() => setEditing(false)}
        onDone={() => {
          setEditing(false);
          update.reset();
        }}
      >
        <EquipmentUnitForm
          id={formId}
          disabled={update.isPending || update.isSuccess}
          initial={{
            serialNumber: unit.serialNumber,
            inventoryNumber: unit.inventoryNumber,
            departmentId: unit.departmentId,
          }}
          departments={departments}
          onSubmit={(values) => {
            if (values.departmentId === undefined) return;
            update.mutate(
              {
                id: unit.id,
                departmentDeployment: values.departmentId,
                serialNumber: values.serialNumber,
                inventoryNumber: values.inventoryNumber,
              },
              {
                onSuccess: () => notify.success(equipmentStrings.saved),
                onError: (error) => notify.error(errorMessage(error)),
              },
            );
          }}
        />
      </FormDialog>
    </ListItem>
  );
}
