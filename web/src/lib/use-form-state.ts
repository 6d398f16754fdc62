import { useState } from 'react';

import { useDraftState } from './unsaved';
import { useFocusFirstError } from './use-focus-first-error';

/** A message under each wrong field, by the field's name; a field without one is fine. */
export type FieldErrors<K extends PropertyKey = string> = Partial<Record<K, string>>;

/** The fields of `V` that hold text. */
type TextField<V> = { [K in keyof V]: V[K] extends string ? K : never }[keyof V];

const anyMessage = (errors: object) => Object.values(errors).some((message) => message !== undefined);

type FormStateOptions<V, E> = {
  initial: V | (() => V);
  /** What is wrong with these values (spec §5: each wrong field gets its own message). */
  validate: (values: V) => E;
  /** Whether `validate` found anything; by default, whether any field has a message. */
  hasErrors?: (errors: E) => boolean;
  /**
   * After a submit the messages follow every edit, so a rule that spans fields (or a 0 typed
   * in again) shows while it holds; otherwise editing a field clears its message until the
   * next submit.
   */
  live?: boolean;
};

/**
 * A form's values, its messages and its submit (spec §5): the values are a `useDraftState`
 * (the dialog or page around the form asks before typed work is thrown away), a submit shows
 * what `validate` found or hands the values on, and a refused submit moves the focus to the
 * first wrong field of the form `formRef` is attached to (`useFocusFirstError`).
 */
export function useFormState<V extends object, E extends object = FieldErrors<keyof V>>({
  initial,
  validate,
  hasErrors = anyMessage,
  live = false,
}: FormStateOptions<V, E>) {
  const [values, setValues] = useDraftState(initial);
  // The errors of the last submit, as edits since have left them; none before the first submit.
  const [checked, setChecked] = useState<E | undefined>(undefined);
  const { formRef, focusFirstError } = useFocusFirstError();
  const errors = live && checked !== undefined ? validate(values) : checked;

  /** Changes one value; unless `live`, that field's message goes until the next submit. */
  const set = <K extends keyof V>(field: K, value: V[K]) => {
    setValues((current) => ({ ...current, [field]: value }));
    if (!live) setChecked((current) => current && { ...current, [field]: undefined });
  };

  /** The form's `onSubmit`: `onValid` gets the values when `validate` finds nothing wrong. */
  const submit = (onValid: (values: V) => void) => (event: { preventDefault: () => void }) => {
    event.preventDefault();
    const found = validate(values);
    setChecked(found);
    if (hasErrors(found)) focusFirstError();
    else onValid(values);
  };

  /**
   * A text field's value, edits and message (else `hint`), for forms whose errors are
   * `FieldErrors`; a form with errors of another shape (a test's) reads them itself.
   */
  const textField = (field: TextField<V>, hint?: string) => {
    const message = (errors as FieldErrors<keyof V> | undefined)?.[field];
    return {
      value: values[field] as string,
      onChange: (event: { target: { value: string } }) => set(field, event.target.value as V[TextField<V>]),
      error: message !== undefined,
      helperText: message ?? hint,
    };
  };

  return { values, set, errors, submit, textField, formRef };
}
