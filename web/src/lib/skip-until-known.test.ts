import { skipToken } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';

import { skipUntilKnown } from './skip-until-known';

describe('skipUntilKnown', () => {
  it('skips the query while the id is unknown', () => {
    expect(skipUntilKnown(undefined, (id) => ({ courseId: id }))).toBe(skipToken);
  });

  it('builds the input from a known id, 0 included', () => {
    expect(skipUntilKnown(7n, (id) => ({ courseId: id }))).toEqual({ courseId: 7n });
    expect(skipUntilKnown(0n, (id) => ({ userId: id }))).toEqual({ userId: 0n });
  });
});
