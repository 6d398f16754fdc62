import { diffWords } from 'diff';

// The revisions' comparison (issue 25): what two saved versions say, as text, word by word.
// Stored rich text is never rendered here: it is read into text by a parser that runs no
// script and loads nothing, and the diff is shown as text in styled spans.

/** Elements whose end is a line's end in the text of rich content. */
const BLOCKS = new Set([
  'P',
  'DIV',
  'LI',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'BLOCKQUOTE',
  'PRE',
  'TR',
  'BR',
  'UL',
  'OL',
  'TABLE',
]);

/** The text a reader sees in stored HTML: one line per block, runs of spaces as one. */
export function htmlToText(html: string): string {
  // An inert document: no script runs, no image or frame loads.
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  const lines: string[] = [];
  let line = '';
  const endLine = () => {
    const trimmed = line.replace(/\s+/g, ' ').trim();
    if (trimmed !== '') lines.push(trimmed);
    line = '';
  };
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      line += node.textContent ?? '';
      return;
    }
    if (!(node instanceof Element)) return;
    const block = BLOCKS.has(node.tagName);
    if (block) endLine();
    node.childNodes.forEach(walk);
    if (block) endLine();
  };
  body.childNodes.forEach(walk);
  endLine();
  return lines.join('\n');
}

/** A piece of a comparison: text both versions hold, or only the newer, or only the older. */
export type DiffPart = { kind: 'same' | 'added' | 'removed'; text: string };

// jsdiff's own idea of a word is Latin letters: a Russian word would be compared letter by
// letter. The browser's word segmenter knows Cyrillic.
const words = new Intl.Segmenter('ru', { granularity: 'word' });

/** How `older` became `newer`, word by word (jsdiff's `diffWords`), in the newer's order. */
export function wordDiff(older: string, newer: string): DiffPart[] {
  return diffWords(older, newer, { intlSegmenter: words }).map((change) => ({
    kind: change.added ? 'added' : change.removed ? 'removed' : 'same',
    text: change.value,
  }));
}

/** A test as text for the comparison: its fields, then each question with its answers. */
export type TestText = {
  title: string;
  description: string;
  totalPointsRequired: number;
  numberOfQuestions: number;
  numberOfTries: number;
  questions: { title: string; answers: { title: string; isCorrect: boolean }[] }[];
};

/** One line per field, question and answer; a correct answer marked «✓», another «–». */
export function testToText(test: TestText, labels: { points: string; questions: string; tries: string }) {
  return [
    test.title,
    test.description,
    `${labels.points}: ${test.totalPointsRequired}`,
    `${labels.questions}: ${test.numberOfQuestions}`,
    `${labels.tries}: ${test.numberOfTries}`,
    ...test.questions.flatMap((question, index) => [
      `${index + 1}. ${question.title}`,
      ...question.answers.map((answer) => `${answer.isCorrect ? '✓' : '–'} ${answer.title}`),
    ]),
  ].join('\n');
}
