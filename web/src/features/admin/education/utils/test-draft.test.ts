import { describe, expect, it } from 'vitest';

import { adminStrings } from '@/lib/admin-strings';

import {
  digitsOnly,
  emptyTest,
  hasErrors,
  newQuestion,
  type QuestionDraft,
  validateTest,
} from './test-draft';

const text = adminStrings.education.test;

function question(title: string, answers: [string, boolean][]): QuestionDraft {
  return {
    ...newQuestion(),
    title,
    answers: answers.map(([answer, isCorrect], index) => ({
      key: `a${index}`,
      id: 0n,
      title: answer,
      isCorrect,
    })),
  };
}

const good = () =>
  question('Сколько длится обработка рук?', [
    ['30 секунд', true],
    ['5 секунд', false],
  ]);

describe('a new test', () => {
  it('starts with the spec defaults: 10 points, 10 questions, 3 tries', () => {
    const draft = emptyTest();
    expect([draft.totalPointsRequired, draft.numberOfQuestions, draft.numberOfTries]).toEqual([
      '10',
      '10',
      '3',
    ]);
  });
});

describe('digitsOnly', () => {
  it('keeps digits and drops anything else', () => {
    expect(digitsOnly('1a2-3.4')).toBe('1234');
    expect(digitsOnly('-5')).toBe('5');
    expect(digitsOnly('1e3')).toBe('13');
  });
});

describe('validateTest', () => {
  const valid = () => ({
    ...emptyTest(),
    title: 'Гигиена рук',
    description: 'Проверка знаний',
    totalPointsRequired: '1',
    numberOfQuestions: '2',
    questions: [good(), good()],
  });

  it('accepts a complete test', () => {
    expect(hasErrors(validateTest(valid()))).toBe(false);
  });

  it('says a zero must be greater than 0 and an empty number is missing', () => {
    const errors = validateTest({ ...valid(), numberOfTries: '0', totalPointsRequired: '' });
    expect(errors.numbers).toEqual({
      numberOfTries: text.mustBePositive,
      totalPointsRequired: text.valueRequired,
    });
  });

  it('blocks points above the question count and more drawn questions than exist, with the spec messages', () => {
    const errors = validateTest({ ...valid(), totalPointsRequired: '3', numberOfQuestions: '3' });
    expect(errors.rules).toEqual([
      'Необходимое количество очков превышает количество вопросов в тесте',
      'Количество вопросов после перемешивания не может превышать количество вопросов в тесте',
    ]);
    expect(validateTest({ ...valid(), totalPointsRequired: '3' }).rules).toEqual([
      'Необходимое количество очков превышает количество вопросов в тесте',
    ]);
  });

  it('blocks a pass mark above the questions drawn, which nobody could reach', () => {
    expect(validateTest({ ...valid(), totalPointsRequired: '2', numberOfQuestions: '1' }).rules).toEqual([
      text.pointsExceedDrawn,
    ]);
  });

  it('needs question and answer texts and exactly one correct answer', () => {
    const blank = question(' ', [
      ['', true],
      ['Нет', false],
    ]);
    const noneCorrect = question('Вопрос', [
      ['Да', false],
      ['Нет', false],
    ]);
    const single = question('Вопрос', [['Да', true]]);
    const errors = validateTest({ ...valid(), questions: [blank, noneCorrect, single, good()] });
    expect(errors.questions[blank.key]).toEqual({
      title: text.questionRequired,
      answers: { a0: text.answerRequired },
    });
    expect(errors.questions[noneCorrect.key]).toEqual({ answers: {}, choice: text.oneCorrect });
    expect(errors.questions[single.key]).toEqual({ answers: {}, choice: text.twoAnswers });
    expect(Object.keys(errors.questions)).toHaveLength(3);
  });

  it('needs a title and a description', () => {
    const errors = validateTest({ ...valid(), title: ' ', description: '' });
    expect([errors.title, errors.description]).toEqual([text.titleRequired, text.descriptionRequired]);
  });
});
