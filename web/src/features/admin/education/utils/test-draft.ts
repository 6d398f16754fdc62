import type { Test } from '@/gen/portal/education/v1/education_pb';
import { adminStrings } from '@/lib/admin-strings';
import { lengthError, limits } from '@/lib/limits';

const text = adminStrings.education.test;

/** An answer being edited; `key` tells rows apart before they have ids (id 0 = new). */
export type AnswerDraft = { key: string; id: bigint; title: string; isCorrect: boolean };
export type QuestionDraft = { key: string; id: bigint; title: string; answers: AnswerDraft[] };

/** A test being edited. The three numbers are kept as typed (digits only). */
export type TestDraft = {
  title: string;
  description: string;
  totalPointsRequired: string;
  numberOfQuestions: string;
  numberOfTries: string;
  articleId: bigint;
  questions: QuestionDraft[];
};

export type NumberField = 'totalPointsRequired' | 'numberOfQuestions' | 'numberOfTries';

let lastKey = 0;
const newKey = () => `new-${++lastKey}`;

export const newAnswer = (): AnswerDraft => ({ key: newKey(), id: 0n, title: '', isCorrect: false });

export const newQuestion = (): QuestionDraft => ({
  key: newKey(),
  id: 0n,
  title: '',
  answers: [newAnswer(), newAnswer()],
});

/** Spec §5's defaults of a new test: 10 points required, 10 questions drawn, 3 tries. */
export const emptyTest = (): TestDraft => ({
  title: '',
  description: '',
  totalPointsRequired: '10',
  numberOfQuestions: '10',
  numberOfTries: '3',
  articleId: 0n,
  questions: [newQuestion()],
});

export function draftOf(test: Test): TestDraft {
  return {
    title: test.title,
    description: test.description,
    totalPointsRequired: String(test.totalPointsRequired),
    numberOfQuestions: String(test.numberOfQuestions),
    numberOfTries: String(test.numberOfTries),
    articleId: test.articleId,
    questions: test.questions.map((question) => ({
      key: `q${question.id}`,
      id: question.id,
      title: question.title,
      answers: question.answers.map((answer) => ({
        key: `a${answer.id}`,
        id: answer.id,
        title: answer.title,
        isCorrect: answer.isCorrect,
      })),
    })),
  };
}

/** Spec §5: the create form's numbers accept digits only (at most four of them). */
export const digitsOnly = (typed: string) => typed.replace(/\D/g, '').slice(0, 4);

export type QuestionErrors = { title?: string; answers: Record<string, string>; choice?: string };

export type TestErrors = {
  title?: string;
  description?: string;
  numbers: Partial<Record<NumberField, string>>;
  /** Keyed by question key; only questions with a problem. */
  questions: Record<string, QuestionErrors>;
  /** Spec §5's checks against the number of questions: they block the save. */
  rules: string[];
  /** The same checks at the number they are about (issue 19 point 12). */
  ruleFields: Partial<Record<NumberField, string>>;
};

/** A number's own error as it is typed (spec §5: 0 shows 'Значение должно быть больше 0'). */
export function numberFieldError(value: string): string | undefined {
  if (value === '') return text.valueRequired;
  return Number(value) === 0 ? text.mustBePositive : undefined;
}

function questionErrors(question: QuestionDraft): QuestionErrors | undefined {
  const errors: QuestionErrors = { answers: {} };
  if (question.title.trim() === '') errors.title = text.questionRequired;
  for (const answer of question.answers) {
    if (answer.title.trim() === '') errors.answers[answer.key] = text.answerRequired;
  }
  if (question.answers.length < 2) errors.choice = text.twoAnswers;
  else if (question.answers.filter((answer) => answer.isCorrect).length !== 1)
    errors.choice = text.oneCorrect;
  const found =
    errors.title !== undefined || errors.choice !== undefined || Object.keys(errors.answers).length > 0;
  return found ? errors : undefined;
}

/** Everything that stops a test from being saved, with the spec's and the server's messages. */
export function validateTest(draft: TestDraft): TestErrors {
  const numbers: TestErrors['numbers'] = {};
  for (const field of ['totalPointsRequired', 'numberOfQuestions', 'numberOfTries'] as const) {
    const error = numberFieldError(draft[field]);
    if (error !== undefined) numbers[field] = error;
  }
  const questions: TestErrors['questions'] = {};
  for (const question of draft.questions) {
    const errors = questionErrors(question);
    if (errors !== undefined) questions[question.key] = errors;
  }
  const ruleFields: TestErrors['ruleFields'] = {};
  const count = draft.questions.length;
  const points = Number(draft.totalPointsRequired);
  const drawn = Number(draft.numberOfQuestions);
  if (numbers.totalPointsRequired === undefined && points > count)
    ruleFields.totalPointsRequired = text.pointsExceedQuestions;
  if (numbers.numberOfQuestions === undefined && drawn > count)
    ruleFields.numberOfQuestions = text.drawnExceedQuestions;
  // Beyond spec §5, as the server: a pass mark above the questions drawn cannot be reached.
  const numbersValid = Object.keys(numbers).length === 0;
  if (Object.keys(ruleFields).length === 0 && numbersValid && points > drawn)
    ruleFields.totalPointsRequired = text.pointsExceedDrawn;
  return {
    title: draft.title.trim() === '' ? text.titleRequired : lengthError(draft.title, limits.educationTitle),
    description:
      draft.description.trim() === ''
        ? text.descriptionRequired
        : lengthError(draft.description, limits.educationDescription),
    numbers,
    questions,
    rules: Object.values(ruleFields),
    ruleFields,
  };
}

export function hasErrors(errors: TestErrors): boolean {
  return (
    errors.title !== undefined ||
    errors.description !== undefined ||
    Object.keys(errors.numbers).length > 0 ||
    Object.keys(errors.questions).length > 0 ||
    errors.rules.length > 0
  );
}

/** The draft as the service takes it (CreateTest/UpdateTest): titles trimmed, numbers parsed. */
export function testFields(draft: TestDraft) {
  return {
    title: draft.title.trim(),
    description: draft.description.trim(),
    totalPointsRequired: Number(draft.totalPointsRequired),
    numberOfQuestions: Number(draft.numberOfQuestions),
    numberOfTries: Number(draft.numberOfTries),
    articleId: draft.articleId,
    questions: draft.questions.map((question) => ({
      id: question.id,
      title: question.title.trim(),
      answers: question.answers.map((answer) => ({
        id: answer.id,
        title: answer.title.trim(),
        isCorrect: answer.isCorrect,
      })),
    })),
  };
}
