import AddIcon from '@mui/icons-material/Add';
import { Button } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateModel } from '../api/wiki-queries';
import { ModelForm } from './model-form';

const formId = 'create-model';
const empty = { name: '', brandName: '', description: '' };

/** A new equipment model (spec §4, §8, §9: 3 s after success the form resets and closes). */
export function CreateModelDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateModel();

  return (
    <>
      <Button variant="contained" startIcon={<AddIcon />} onClick={() => setOpen(true)}>
        {equipmentStrings.admin.createModel}
      </Button>
      <FormDialog
        open={open}
        title={equipmentStrings.admin.createModelTitle}
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
        <ModelForm
          key={formKey}
          id={formId}
          initial={empty}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { ...values, shortInstruction: '' },
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
