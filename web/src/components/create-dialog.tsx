import AddOutlined from '@mui/icons-material/AddOutlined';
import { Button, type ButtonProps } from '@mui/material';
import { Fragment, type ReactNode, useState } from 'react';

import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { FormDialog } from './form-dialog';

type Saving = 'idle' | 'pending' | 'done';

/** What a create dialog hands the form inside it: its id, whether it is locked, what submitting it does. */
export type FormProps<V> = { id: string; disabled: boolean; onSubmit: (values: V) => void };

type CreateDialogProps<V> = {
  formId: string;
  text: { create: string; createTitle: string; created: string };
  /** The error toast of a failed create: a fixed text, or the server's reason (spec §8). */
  failed: (error: unknown) => string;
  /** How long the dialog stays after a success (spec §9: 1, 2 or 3 s by entity). */
  closeDelayMs: number;
  /** Sends the form's values (a mutation's `mutateAsync`). */
  create: (values: V) => Promise<unknown>;
  /** The dialog's submit button, when it does not say «Создать» (a logbook entry is saved). */
  submitLabel?: string;
  /** A form with many fields (a test's questions) gets a wider dialog. */
  wide?: boolean;
  /** The opening button, when it differs from a contained one with a plus. */
  button?: Omit<ButtonProps, 'onClick' | 'children'>;
  children: (form: FormProps<V>) => ReactNode;
};

/**
 * A create button and its dialog (spec §4): a success shows its toast, stays `closeDelayMs`,
 * then the dialog closes and the next opening starts from an empty form; a failure shows its
 * toast and keeps what was typed.
 */
export function CreateDialog<V>({
  formId,
  text,
  failed,
  closeDelayMs,
  create,
  submitLabel = strings.common.create,
  wide = false,
  button,
  children,
}: CreateDialogProps<V>) {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const [saving, setSaving] = useState<Saving>('idle');

  const submit = (values: V) => {
    setSaving('pending');
    create(values).then(
      () => {
        notify.success(text.created);
        setSaving('done');
      },
      (error: unknown) => {
        notify.error(failed(error));
        setSaving('idle');
      },
    );
  };

  return (
    <>
      <Button variant="contained" startIcon={<AddOutlined />} {...button} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={submitLabel}
        pending={saving === 'pending'}
        succeeded={saving === 'done'}
        closeDelayMs={closeDelayMs}
        wide={wide}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          setSaving('idle');
        }}
      >
        <Fragment key={formKey}>
          {children({ id: formId, disabled: saving !== 'idle', onSubmit: submit })}
        </Fragment>
      </FormDialog>
    </>
  );
}
