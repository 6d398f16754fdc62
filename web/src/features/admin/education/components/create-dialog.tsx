import AddOutlined from '@mui/icons-material/AddOutlined';
import { Button } from '@mui/material';
import { Fragment, type ReactNode, useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

/** What a create mutation offers the dialog (connect-query's `useMutation` fits). */
type Creation<V> = {
  isPending: boolean;
  isSuccess: boolean;
  reset: () => void;
  mutate: (values: V, callbacks: { onSuccess: () => void; onError: () => void }) => void;
};

type CreateDialogProps<V> = {
  formId: string;
  text: { create: string; createTitle: string; created: string; createFailed: string };
  creation: Creation<V>;
  /** The form, given its id, whether it is locked, and what submitting it does. */
  children: (form: { id: string; disabled: boolean; onSubmit: (values: V) => void }) => ReactNode;
};

/**
 * The button and dialog that create a course, article or test: the dialog closes 2 s after
 * success (spec §5), and the next opening starts from an empty form.
 */
export function CreateDialog<V>({ formId, text, creation, children }: CreateDialogProps<V>) {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);

  return (
    <>
      <Button variant="contained" startIcon={<AddOutlined />} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={creation.isPending}
        succeeded={creation.isSuccess}
        closeDelayMs={2000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          creation.reset();
        }}
      >
        <Fragment key={formKey}>
          {children({
            id: formId,
            disabled: creation.isPending || creation.isSuccess,
            onSubmit: (values) =>
              creation.mutate(values, {
                onSuccess: () => notify.success(text.created),
                onError: () => notify.error(text.createFailed),
              }),
          })}
        </Fragment>
      </FormDialog>
    </>
  );
}
