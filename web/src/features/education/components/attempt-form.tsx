import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormLabel,
  Paper,
  Radio,
  RadioGroup,
  Stack,
  Typography,
} from '@mui/material';
import { useState } from 'react';

import type { StartAttemptResponse } from '@/gen/portal/education/v1/education_pb';
import { formatTime } from '@/lib/dates';
import { strings } from '@/lib/strings';

import { type Chosen, readChosen, writeChosen } from '../utils/attempt-draft';

const text = strings.education.test;

/** The answer chosen for one drawn question. */
export type ChosenAnswer = { questionId: bigint; answerId: bigint };

type AttemptFormProps = {
  attempt: StartAttemptResponse;
  submitting: boolean;
  onFinish: (answers: ChosenAnswer[]) => void;
};

/**
 * Spec §4 "started": the drawn questions as radio groups, the chosen answer kept per
 * question, and 'Завершить тест'. Finishing with questions left unanswered asks first.
 * The choices outlive a reload of the page: the same attempt comes back with them.
 */
export function AttemptForm({ attempt, submitting, onFinish }: AttemptFormProps) {
  const [chosen, setChosen] = useState<Chosen>(() => readChosen(attempt.attemptId));
  const [confirming, setConfirming] = useState(false);
  const total = attempt.questions.length;
  const answered = attempt.questions.filter((question) => chosen[String(question.id)]).length;

  const finish = () => {
    setConfirming(false);
    onFinish(
      attempt.questions.flatMap((question) => {
        const answer = chosen[String(question.id)];
        return answer ? [{ questionId: question.id, answerId: BigInt(answer) }] : [];
      }),
    );
  };

  return (
    <Stack
      component="form"
      spacing={2}
      onSubmit={(event) => {
        event.preventDefault();
        if (answered < total) setConfirming(true);
        else finish();
      }}
    >
      {attempt.expiresAt && <Alert severity="info">{text.finishBy(formatTime(attempt.expiresAt))}</Alert>}
      {attempt.questions.map((question, index) => (
        <Paper key={question.id} variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
          <FormControl component="fieldset" sx={{ width: '100%' }}>
            <FormLabel
              component="legend"
              sx={{
                color: 'text.primary',
                fontWeight: 500,
                mb: 1,
                '&.Mui-focused': { color: 'text.primary' },
              }}
            >
              {`${index + 1}. ${question.title}`}
            </FormLabel>
            <RadioGroup
              value={chosen[String(question.id)] ?? ''}
              onChange={(event) => {
                const next = { ...chosen, [String(question.id)]: event.target.value };
                setChosen(next);
                writeChosen(attempt.attemptId, next);
              }}
            >
              {question.answers.map((answer) => (
                <FormControlLabel
                  key={answer.id}
                  value={String(answer.id)}
                  control={<Radio />}
                  label={answer.title}
                  sx={{ alignItems: 'flex-start', my: 0.25, '& .MuiRadio-root': { py: 0.5 } }}
                  slotProps={{ typography: { sx: { pt: 0.75 } } }}
                />
              ))}
            </RadioGroup>
          </FormControl>
        </Paper>
      ))}
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1.5}
        sx={{ alignItems: { xs: 'stretch', sm: 'center' }, justifyContent: 'flex-end' }}
      >
        <Typography role="status" sx={{ color: 'text.secondary' }}>
          {text.answered(answered, total)}
        </Typography>
        <Button type="submit" variant="contained" size="large" loading={submitting}>
          {text.finish}
        </Button>
      </Stack>
      <Dialog open={confirming} onClose={() => setConfirming(false)}>
        <DialogTitle>{text.unansweredTitle}</DialogTitle>
        <DialogContent>
          <DialogContentText>{text.unanswered(total - answered)}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>{text.backToQuestions}</Button>
          <Button variant="contained" onClick={finish}>
            {text.finish}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
