import { List, Paper, Typography } from '@mui/material';
import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { EntityHistory } from '@/components/entity-history';
import { PageHeader } from '@/components/page-header';
import type { EnvironmentModel } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';

import { useDepartments, useModel, useUpdateModel } from '../api/wiki-queries';
import { CreateUnitDialog } from './create-unit-dialog';
import { ModelForm, type ModelFormValues } from './model-form';
import { RequiredCourses } from './required-courses';
import { UnitRow } from './unit-row';

const collator = new Intl.Collator('ru-RU', { numeric: true });
const byTitle = new Intl.Collator('ru-RU');
const equipment = equipmentStrings.admin;

/** The model's units, by inventory number, with a way to add one. */
function Units({ model }: { model: EnvironmentModel }) {
  const departments = [...(useDepartments().data?.departments ?? [])]
    .sort((a, b) => byTitle.compare(a.title, b.title))
    .map((department) => ({ id: department.id, label: department.title }));
  const units = [...model.environments].sort((a, b) =>
    collator.compare(a.inventoryNumber, b.inventoryNumber),
  );
  return (
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
  );
}

/**
 * One equipment model: its fields to edit, the courses it requires for clearance, its units
 * with a way to add one, and its history for those who read the audit log.
 */
export function ModelPage() {
  const modelId = parseId(useParams().adminEnvironmentModelId);
  const query = useModel(modelId);
  const update = useUpdateModel();

  return (
    <EditPage
      id={modelId}
      load={query}
      entity={query.data?.environmentModel}
      loadFailed={equipment.loadFailed}
      title={(model) => model.name}
      formId="admin-model"
      save={(model, values: ModelFormValues) =>
        update.mutateAsync({
          id: model.id,
          ...values,
          shortInstruction: model.shortInstruction,
          manufacturerId: model.manufacturerId,
          environmentTypeId: model.environmentTypeId,
        })
      }
      saved={equipmentStrings.saved}
      failed={errorMessage}
      maxWidth={880}
      below={(model) => (
        <>
          <RequiredCourses model={model} />
          <Units model={model} />
          {/* Its instruction's and required courses' changes are the model's records too. */}
          <EntityHistory entity="environment-model" entityId={model.id} version={query.dataUpdatedAt} />
        </>
      )}
    >
      {(model, form) => (
        <ModelForm
          {...form}
          initial={{ name: model.name, brandName: model.brandName, description: model.description }}
        />
      )}
    </EditPage>
  );
}
