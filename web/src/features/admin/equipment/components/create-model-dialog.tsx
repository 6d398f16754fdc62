import { CreateDialog } from '@/components/create-dialog';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';

import { useCreateModel } from '../api/wiki-queries';
import { ModelForm, type ModelFormValues } from './model-form';

const empty = { name: '', brandName: '', description: '' };

/** A new equipment model (spec §4, §8, §9: 3 s after success the form resets and closes). */
export function CreateModelDialog() {
  const create = useCreateModel();
  return (
    <CreateDialog
      formId="create-model"
      text={{
        create: equipmentStrings.admin.createModel,
        createTitle: equipmentStrings.admin.createModelTitle,
        created: equipmentStrings.created,
      }}
      failed={(error) => equipmentStrings.createFailed + errorMessage(error)}
      closeDelayMs={3000}
      create={(values: ModelFormValues) => create.mutateAsync({ ...values, shortInstruction: '' })}
    >
      {(form) => <ModelForm {...form} initial={empty} />}
    </CreateDialog>
  );
}
