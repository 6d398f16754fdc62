import { Button, List, Paper, Stack, Typography } from '@mui/material';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useDepartments, useModel, useUpdateModel } from '../api/wiki-queries';
import { CreateUnitDialog } from './create-unit-dialog';
import { ModelForm } from './model-form';
import { UnitRow } from './unit-row';

const formId = 'admin-model';
const collator = new Intl.Collator('ru-RU', { numeric: true });
const byTitle = new Intl.Collator('ru-RU');

/** One equipment model: its fields to edit, and its units with a way to add one. */
export function ModelPage() {
  const modelId = parseId(useParams().adminEnvironmentModelId);
  const query = useModel(modelId);
  const update = useUpdateModel();
  const departments = [...(useDepartments().data?.departments ?? [])]
    .sort((a, b) => byTitle.compare(a.title, b.title))
    .map((department) => ({ id: department.id, label: department.title }));
  const equipment = equipmentStrings.admin;

  if (modelId === undefined || query.isError) return <LoadError message={equipment.loadFailed} />;
  if (query.isPending) return <Loading />;
  const model = query.data.environmentModel;
  if (!model) return <LoadError message={equipment.loadFailed} />;
  const units = [...model.environments].sort((a, b) =>
    collator.compare(a.inventoryNumber, b.inventoryNumber),
  );

  return (
    <Stack spacing={3} sx={{ maxWidth: 880 }}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader title={model.name} />
        <Stack spacing={3}>
          {/* Saved data comes back refetched: a new key starts the form from it. */}
          <ModelForm
            key={query.dataUpdatedAt}
            id={formId}
            initial={{ name: model.name, brandName: model.brandName, description: model.description }}
            disabled={update.isPending}
            onSubmit={(values) =>
              update.mutate(
                {
                  id: model.id,
                  ...values,
                  shortInstruction: model.shortInstruction,
                  manufacturerId: model.manufacturerId,
                  environmentTypeId: model.environmentTypeId,
                },
                {
                  onSuccess: () => notify.success(equipmentStrings.saved),
                  onError: (error) => notify.error(errorMessage(error)),
                },
              )
            }
          />
          <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
            <Button type="submit" form={formId} variant="contained" loading={update.isPending}>
              {strings.common.save}
            </Button>
          </Stack>
        </Stack>
      </Paper>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader title={equipment.units} action={<CreateUnitDialog modelId={model.id} />} />
        {units.length === 0 ? (
          <Typography sx={{ color: 'text.secondary' }}>{equipment.unitsEmpty}</Typography>
        ) : (
          <List disablePadding>
            {units.map((unit) => (
              <UnitRow key={unit.id} unit={unit} departments={departments} />
            ))}
          </List>
        )}
      </Paper>
    </Stack>
  );
}
