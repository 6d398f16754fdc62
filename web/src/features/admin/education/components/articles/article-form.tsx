import { Stack } from '@mui/material';
import { useState, type ReactNode } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { useDraftState } from '@/lib/unsaved';
import { useFocusFirstError } from '@/lib/use-focus-first-error';

import { useTests } from '../../api/education-queries';
import { basicErrors, type BasicErrors } from '../../utils/basic-values';
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
  const [values, setValues] = useDraftState(initial);
  const [errors, setErrors] = useState<BasicErrors>({});
  const { formRef, focusFirstError } = useFocusFirstError();
  const tests = useTests().data?.tests ?? [];

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        const found = basicErrors(values, text);
        setErrors(found);
        if (Object.keys(found).length > 0) focusFirstError();
        else {
          onSubmit({ ...values, title: values.title.trim(), description: values.description.trim() });
        }
      }}
    >
      <BasicFields
        values={values}
        errors={errors}
        disabled={disabled}
        onChange={(field, value) => {
          setValues((current) => ({ ...current, [field]: value }));
          setErrors((current) => ({ ...current, [field]: undefined }));
        }}
      />
      <EntitySelect
        label={text.test}
        noneLabel={text.noTest}
        options={tests}
        value={values.testId}
        onChange={(testId) => setValues((current) => ({ ...current, testId }))}
        disabled={disabled}
      />
      {children}
    </Stack>
  );
}
