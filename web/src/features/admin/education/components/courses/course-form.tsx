import { Stack } from '@mui/material';
import { useState } from 'react';

import { MultiSelect } from '@/components/multi-select';
import { adminStrings } from '@/lib/admin-strings';
import { useDraftState } from '@/lib/unsaved';
import { useFocusFirstError } from '@/lib/use-focus-first-error';

import { useDepartmentsAndPeople } from '../../../api/people-queries';
import { useArticles } from '../../api/education-queries';
import { basicErrors, type BasicErrors } from '../../utils/basic-values';
import type { CourseFormValues } from '../../utils/form-values';
import { BasicFields } from '../basic-fields';

const text = adminStrings.education.course;

type CourseFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: CourseFormValues;
  disabled: boolean;
  onSubmit: (values: CourseFormValues) => void;
};

/** A course, its assignees and its articles: the create dialog and the course page share it. */
export function CourseForm({ id, initial, disabled, onSubmit }: CourseFormProps) {
  const [values, setValues] = useDraftState(initial);
  const [errors, setErrors] = useState<BasicErrors>({});
  const { formRef, focusFirstError } = useFocusFirstError();
  const { people } = useDepartmentsAndPeople();
  const articles = useArticles().data?.articles ?? [];
  const articleChoices = articles.map((article) => ({ id: article.id, label: article.title }));

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
      <MultiSelect
        label={text.assignees}
        options={Array.from(people.values())}
        value={values.userIds}
        onChange={(userIds) => setValues((current) => ({ ...current, userIds }))}
        disabled={disabled}
      />
      <MultiSelect
        label={text.articles}
        options={articleChoices}
        value={values.articleIds}
        onChange={(articleIds) => setValues((current) => ({ ...current, articleIds }))}
        disabled={disabled}
      />
    </Stack>
  );
}
