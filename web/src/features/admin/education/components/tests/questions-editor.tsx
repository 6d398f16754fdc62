import AddOutlined from '@mui/icons-material/AddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import {
  Button,
  FormHelperText,
  IconButton,
  Paper,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Tooltip,
} from '@mui/material';

import { adminStrings } from '@/lib/admin-strings';

import { newAnswer, newQuestion, type QuestionDraft, type TestErrors } from '../../utils/test-draft';

const text = adminStrings.education.test;

type QuestionsEditorProps = {
  questions: QuestionDraft[];
  onChange: (questions: QuestionDraft[]) => void;
  /** Shown once the admin has tried to save. */
  errors: TestErrors['questions'] | undefined;
  disabled: boolean;
};

/** A test's questions, each with its answers and a radio for the one correct answer (spec §5). */
export function QuestionsEditor({ questions, onChange, errors, disabled }: QuestionsEditorProps) {
  const edit = (key: string, change: (question: QuestionDraft) => QuestionDraft) =>
    onChange(questions.map((question) => (question.key === key ? change(question) : question)));

  return (
    <Stack spacing={2}>
      {questions.map((question, index) => {
        const problems = errors?.[question.key];
        const correct = question.answers.find((answer) => answer.isCorrect)?.key ?? '';
        return (
          <Paper
            key={question.key}
            variant="outlined"
            sx={{ p: 2 }}
            role="group"
            aria-label={text.question(index + 1)}
          >
            <Stack spacing={1.5}>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
                <TextField
                  label={text.question(index + 1)}
                  value={question.title}
                  onChange={(event) => edit(question.key, (q) => ({ ...q, title: event.target.value }))}
                  error={problems?.title !== undefined}
                  helperText={problems?.title}
                  disabled={disabled}
                  required
                  fullWidth
                  multiline
                />
                <Tooltip title={text.removeQuestion}>
                  <span>
                    <IconButton
                      aria-label={text.removeQuestion}
                      disabled={disabled}
                      onClick={() => onChange(questions.filter((q) => q.key !== question.key))}
                    >
                      <DeleteOutlined />
                    </IconButton>
                  </span>
                </Tooltip>
              </Stack>
              <RadioGroup
                value={correct}
                onChange={(event) =>
                  edit(question.key, (q) => ({
                    ...q,
                    answers: q.answers.map((answer) => ({
                      ...answer,
                      isCorrect: answer.key === event.target.value,
                    })),
                  }))
                }
              >
                <Stack spacing={1} sx={{ pl: { xs: 0, sm: 2 } }}>
                  {question.answers.map((answer, answerIndex) => (
                    <Stack key={answer.key} direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
                      <Tooltip title={text.correct}>
                        <Radio
                          value={answer.key}
                          disabled={disabled}
                          slotProps={{
                            input: { 'aria-label': `${text.correct}: ${text.answer(answerIndex + 1)}` },
                          }}
                        />
                      </Tooltip>
                      <TextField
                        label={text.answer(answerIndex + 1)}
                        value={answer.title}
                        onChange={(event) =>
                          edit(question.key, (q) => ({
                            ...q,
                            answers: q.answers.map((a) =>
                              a.key === answer.key ? { ...a, title: event.target.value } : a,
                            ),
                          }))
                        }
                        error={problems?.answers[answer.key] !== undefined}
                        helperText={problems?.answers[answer.key]}
                        disabled={disabled}
                        required
                        fullWidth
                        size="small"
                      />
                      <IconButton
                        aria-label={`${text.removeAnswer} ${answerIndex + 1}`}
                        disabled={disabled}
                        onClick={() =>
                          edit(question.key, (q) => ({
                            ...q,
                            answers: q.answers.filter((a) => a.key !== answer.key),
                          }))
                        }
                      >
                        <DeleteOutlined fontSize="small" />
                      </IconButton>
                    </Stack>
                  ))}
                </Stack>
              </RadioGroup>
              {problems?.choice !== undefined && <FormHelperText error>{problems.choice}</FormHelperText>}
              <div>
                <Button
                  size="small"
                  startIcon={<AddOutlined />}
                  disabled={disabled}
                  onClick={() => edit(question.key, (q) => ({ ...q, answers: [...q.answers, newAnswer()] }))}
                >
                  {text.addAnswer}
                </Button>
              </div>
            </Stack>
          </Paper>
        );
      })}
      <div>
        <Button
          variant="outlined"
          startIcon={<AddOutlined />}
          disabled={disabled}
          onClick={() => onChange([...questions, newQuestion()])}
        >
          {text.addQuestion}
        </Button>
      </div>
    </Stack>
  );
}
