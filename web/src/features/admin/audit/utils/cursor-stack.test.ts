import { describe, expect, it } from 'vitest';

import { back, current, firstPage, forward, pageNumber } from './cursor-stack';

describe('the journal’s pages by cursor', () => {
  it('starts on the first page, which no cursor opens', () => {
    expect(pageNumber(firstPage)).toBe(1);
    expect(current(firstPage)).toBeNull();
  });

  it('goes forward by each page’s next cursor and back along the same ones', () => {
    const third = forward(forward(firstPage, 'c2'), 'c3');
    expect(pageNumber(third)).toBe(3);
    expect(current(third)).toBe('c3');
    const second = back(third);
    expect(current(second)).toBe('c2');
    expect(pageNumber(second)).toBe(2);
    // On again from the second page: the same cursor, the same third page.
    expect(forward(second, 'c3')).toEqual(third);
    expect(back(second)).toEqual(firstPage);
  });

  it('stays on the first page going back from it', () => {
    expect(back(firstPage)).toBe(firstPage);
  });
});
