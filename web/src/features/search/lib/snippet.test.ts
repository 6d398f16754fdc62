import { describe, expect, it } from 'vitest';

import type { SearchHit } from '../api/search';
import { groupByKind, snippetParts } from './snippet';

describe('snippetParts', () => {
  it('marks the matched words and unescapes the rest as text', () => {
    expect(snippetParts('Перед &lt;b&gt;: <mark>обработке</mark> рук &amp; <mark>обработку</mark>')).toEqual([
      { text: 'Перед <b>: ', marked: false },
      { text: 'обработке', marked: true },
      { text: ' рук & ', marked: false },
      { text: 'обработку', marked: true },
    ]);
  });

  it('never turns escaped markup into a mark', () => {
    expect(snippetParts('&lt;mark&gt;x&lt;/mark&gt;')).toEqual([{ text: '<mark>x</mark>', marked: false }]);
  });
});

describe('groupByKind', () => {
  const hit = (kind: SearchHit['kind'], id: number): SearchHit => ({
    kind,
    id,
    title: '',
    snippet: '',
    url: '',
  });

  it('keeps the groups in a fixed order and the hits in rank order', () => {
    const groups = groupByKind([hit('course', 1), hit('environment-model', 2), hit('course', 3)]);
    expect(groups.map((g) => [g.kind, g.hits.map((h) => h.id)])).toEqual([
      ['environment-model', [2]],
      ['course', [1, 3]],
    ]);
  });
});
