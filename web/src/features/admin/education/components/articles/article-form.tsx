import { Stack } from '@mui/material';
import type { ReactNode } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { useFormState } from '@/lib/use-form-state';

import { useTests } from '../../api/education-queries';
import { basicErrors } from '../../utils/basic-values';
import type { ArticleFormValues } from '../../utils/form-values';
import { BasicFields } from '../basic-fields';
import { EntitySelect } from '../entity-select';

const text = adminStrings.education.article;

type ArticleFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: ArticleFormValues;
  disabled: boolean;
  onSubmit: (values: ArticleFormValues) => void;
  /** Below the fields: the content editor on the article page. */
  children?: ReactNode;
};

/** An article's fields and its test: the create dialog and the article page share it. */
export function ArticleForm({ id, initial, disabled, onSubmit, children }: ArticleFormProps) {
  const { values, set, errors, submit, formRef } = useFormState({
    initial,
    validate: (typed: typeof initial) => basicErrors(typed, text),
  });
  const tests = useTests().data?.tests ?? [];

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={submit((typed) =>
        onSubmit({ ...typed, title: typed.title.trim(), description: typed.description.trim() }),
      )}
    >
      <BasicFields values={values} errors={errors ?? {}} disabled={disabled} onChange={set} />
      <EntitySelect
        label={text.test}
        noneLabel={text.noTest}
        options={tests}
        value={values.testId}
        onChange={(testId) => set('testId', testId)}
        disabled={disabled}
      />
      {children}
    </Stack>
  );
}
