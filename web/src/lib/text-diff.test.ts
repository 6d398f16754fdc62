import { describe, expect, it } from 'vitest';

import { htmlToText, testToText, wordDiff } from './text-diff';

describe('htmlToText', () => {
  it('keeps what a reader sees, a line per block', () => {
    expect(
      htmlToText('<h2>Гигиена</h2><p>Мойте <b>руки</b>   с мылом</p><ul><li>раз</li><li>два</li></ul>'),
    ).toBe('Гигиена\nМойте руки с мылом\nраз\nдва');
  });

  it('never runs or keeps markup: a script and an image are no text', () => {
    const text = htmlToText(
      '<p>Текст<img src=x onerror="window.hacked=1"><script>window.hacked=2</script></p>',
    );
    expect(text).toBe('Текстwindow.hacked=2');
    expect((window as { hacked?: number }).hacked).toBeUndefined();
  });

  it('reads an empty instruction as no text', () => {
    expect(htmlToText('')).toBe('');
    expect(htmlToText('<p><br></p>')).toBe('');
  });
});

describe('wordDiff', () => {
  it('marks the words taken out and put in, and keeps the rest', () => {
    expect(wordDiff('Мойте руки водой', 'Мойте руки с мылом')).toEqual([
      { kind: 'same', text: 'Мойте руки ' },
      { kind: 'removed', text: 'водой' },
      { kind: 'added', text: 'с мылом' },
    ]);
  });

  it('compares Russian words whole, not letter by letter', () => {
    expect(wordDiff('Обрабатывайте руки антисептиком.', 'Мойте руки водой.')).toEqual([
      { kind: 'removed', text: 'Обрабатывайте' },
      { kind: 'added', text: 'Мойте' },
      { kind: 'same', text: ' руки ' },
      { kind: 'removed', text: 'антисептиком' },
      { kind: 'added', text: 'водой' },
      { kind: 'same', text: '.' },
    ]);
  });

  it('answers one unchanged part for the same text', () => {
    expect(wordDiff('Без изменений', 'Без изменений')).toEqual([{ kind: 'same', text: 'Без изменений' }]);
  });

  it('compares stripped HTML, not its tags', () => {
    const parts = wordDiff(
      htmlToText('<p>Обработайте <b>руки</b></p>'),
      htmlToText('<p><i>Обработайте</i> руки</p>'),
    );
    expect(parts).toEqual([{ kind: 'same', text: 'Обработайте руки' }]);
  });
});

describe('testToText', () => {
  it('writes fields, questions and marked answers one a line', () => {
    const text = testToText(
      {
        title: 'Гигиена рук',
        description: 'Пять моментов',
        totalPointsRequired: 1,
        numberOfQuestions: 2,
        numberOfTries: 3,
        questions: [
          {
            title: 'Когда?',
            answers: [
              { title: 'Всегда', isCorrect: true },
              { title: 'Никогда', isCorrect: false },
            ],
          },
        ],
      },
      { points: 'Баллы', questions: 'Вопросы', tries: 'Попытки' },
    );
    expect(text).toBe(
      'Гигиена рук\nПять моментов\nБаллы: 1\nВопросы: 2\nПопытки: 3\n1. Когда?\n✓ Всегда\n– Никогда',
    );
  });
});
