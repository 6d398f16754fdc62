import { Alert, Grid, Stack, TextField, Typography } from '@mui/material';

import { CountedTextField } from '@/components/counted-text-field';
import { adminStrings } from '@/lib/admin-strings';
import { limits } from '@/lib/limits';
import { useFormState } from '@/lib/use-form-state';

import { useArticles } from '../../api/education-queries';
import {
  digitsOnly,
  hasErrors,
  numberFieldError,
  validateTest,
  type NumberField,
  type TestDraft,
} from '../../utils/test-draft';
import { EntitySelect } from '../entity-select';
import { QuestionsEditor } from './questions-editor';

const text = adminStrings.education.test;

const numberFields: [NumberField, string][] = [
  ['totalPointsRequired', text.totalPointsRequired],
  ['numberOfQuestions', text.numberOfQuestions],
  ['numberOfTries', text.numberOfTries],
];

type TestFormProps = {
  /** Lets a button outside the form (dialog actions, page footer) submit it. */
  id: string;
  initial: TestDraft;
  disabled: boolean;
  onSubmit: (draft: TestDraft) => void;
};

/** A test's settings, questions and answers: the create dialog and the test page share it. */
export function TestForm({ id, initial, disabled, onSubmit }: TestFormProps) {
  // Errors show once a save was tried, and then follow the edits; a 0 shows at once (spec §5).
  const { values, set, errors, submit, textField, formRef } = useFormState({
    initial,
    validate: validateTest,
    hasErrors,
    live: true,
  });
  const articles = useArticles().data?.articles ?? [];

  return (
    <Stack component="form" ref={formRef} id={id} noValidate spacing={2.5} onSubmit={submit(onSubmit)}>
      <CountedTextField
        limit={limits.educationTitle}
        label={adminStrings.education.title}
        {...textField('title')}
        required
        disabled={disabled}
        fullWidth
      />
      <TextField
        label={adminStrings.education.description}
        {...textField('description')}
        required
        disabled={disabled}
        fullWidth
        multiline
        minRows={2}
      />
      {/* Two to a row: a third of the dialog cuts «Вопросов после перемешивания» off (issue 19). */}
      <Grid container spacing={2}>
        {numberFields.map(([field, label]) => {
          const error =
            errors?.numbers[field] ??
            errors?.ruleFields[field] ??
            (values[field] === '0' ? numberFieldError('0') : undefined);
          return (
            <Grid key={field} size={{ xs: 12, sm: 6 }}>
              <TextField
                label={label}
                value={values[field]}
                onChange={(event) => set(field, digitsOnly(event.target.value))}
                required
                error={error !== undefined}
                helperText={error}
                disabled={disabled}
                fullWidth
                slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]*' } }}
              />
            </Grid>
          );
        })}
      </Grid>
      <EntitySelect
        label={text.article}
        noneLabel={text.noArticle}
        options={articles}
        value={values.articleId}
        onChange={(articleId) => set('articleId', articleId)}
        disabled={disabled}
      />
      <Stack direction="row" spacing={2} sx={{ alignItems: 'baseline', justifyContent: 'space-between' }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {text.questions}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {text.questionCount(values.questions.length)}
        </Typography>
      </Stack>
      <QuestionsEditor
        questions={values.questions}
        onChange={(questions) => set('questions', questions)}
        errors={errors?.questions}
        disabled={disabled}
      />
      {errors !== undefined && (errors.rules.length > 0 || Object.keys(errors.questions).length > 0) && (
        <Alert severity="error" role="alert">
          {[...errors.rules, ...(Object.keys(errors.questions).length > 0 ? [text.fixErrors] : [])].map(
            (message) => (
              <div key={message}>{message}</div>
            ),
          )}
        </Alert>
      )}
    </Stack>
  );
}
