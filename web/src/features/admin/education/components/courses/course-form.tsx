import { Stack, TextField } from '@mui/material';

import { MultiSelect } from '@/components/multi-select';
import { adminStrings } from '@/lib/admin-strings';
import { useFormState } from '@/lib/use-form-state';

import { useAssigneeChoices } from '../../../api/people-queries';
import { useArticles } from '../../api/education-queries';
import { basicErrors } from '../../utils/basic-values';
import { type CourseFormValues, validityTooLong } from '../../utils/form-values';
import { digitsOnly } from '../../utils/test-draft';
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
  const { values, set, errors, submit, formRef } = useFormState({
    initial,
    validate: (typed: typeof initial) => ({
      ...basicErrors(typed, text),
      ...(validityTooLong(typed.validityMonths) ? { validityMonths: text.validityTooLong } : {}),
    }),
  });
  const assignees = useAssigneeChoices();
  const articles = useArticles().data?.articles ?? [];
  const articleChoices = articles.map((article) => ({ id: article.id, label: article.title }));

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
      <TextField
        label={text.validityMonths}
        value={values.validityMonths}
        onChange={(event) => set('validityMonths', digitsOnly(event.target.value))}
        error={errors?.validityMonths !== undefined}
        helperText={errors?.validityMonths ?? text.validityHint}
        disabled={disabled}
        slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]*' } }}
        sx={{ maxWidth: 320 }}
      />
      <MultiSelect
        label={text.assignees}
        options={assignees}
        value={values.userIds}
        onChange={(userIds) => set('userIds', userIds)}
        disabled={disabled}
      />
      <MultiSelect
        label={text.articles}
        options={articleChoices}
        value={values.articleIds}
        onChange={(articleIds) => set('articleIds', articleIds)}
        disabled={disabled}
      />
    </Stack>
  );
}
