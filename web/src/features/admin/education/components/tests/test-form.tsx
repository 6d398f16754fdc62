import { Alert, Grid, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';

import { CountedTextField } from '@/components/counted-text-field';
import { adminStrings } from '@/lib/admin-strings';
import { limits } from '@/lib/limits';
import { useDraftState } from '@/lib/unsaved';
import { useFocusFirstError } from '@/lib/use-focus-first-error';

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
  const [draft, setDraft] = useDraftState(initial);
  // Errors show once a save was tried, and then follow the edits; a 0 shows at once (spec §5).
  const [tried, setTried] = useState(false);
  const { formRef, focusFirstError } = useFocusFirstError();
  const errors = tried ? validateTest(draft) : undefined;
  const articles = useArticles().data?.articles ?? [];
  const change = <K extends keyof TestDraft>(field: K, value: TestDraft[K]) =>
    setDraft((current) => ({ ...current, [field]: value }));

  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (hasErrors(validateTest(draft))) focusFirstError();
        else onSubmit(draft);
      }}
    >
      <CountedTextField
        limit={limits.educationTitle}
        label={adminStrings.education.title}
        value={draft.title}
        onChange={(event) => change('title', event.target.value)}
        required
        error={errors?.title !== undefined}
        helperText={errors?.title}
        disabled={disabled}
        fullWidth
      />
      <TextField
        label={adminStrings.education.description}
        value={draft.description}
        onChange={(event) => change('description', event.target.value)}
        required
        error={errors?.description !== undefined}
        helperText={errors?.description}
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
            (draft[field] === '0' ? numberFieldError('0') : undefined);
          return (
            <Grid key={field} size={{ xs: 12, sm: 6 }}>
              <TextField
                label={label}
                value={draft[field]}
                onChange={(event) => change(field, digitsOnly(event.target.value))}
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
        value={draft.articleId}
        onChange={(articleId) => change('articleId', articleId)}
        disabled={disabled}
      />
      <Stack direction="row" spacing={2} sx={{ alignItems: 'baseline', justifyContent: 'space-between' }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {text.questions}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {text.questionCount(draft.questions.length)}
        </Typography>
      </Stack>
      <QuestionsEditor
        questions={draft.questions}
        onChange={(questions) => change('questions', questions)}
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
