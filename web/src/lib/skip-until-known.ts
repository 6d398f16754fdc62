import { skipToken } from '@tanstack/react-query';

/**
 * A query's input once the id it needs is known (a route parameter that does not parse, a
 * choice not made yet): until then the query is skipped rather than sent with no id.
 */
export const skipUntilKnown = <T>(id: bigint | undefined, input: (id: bigint) => T) =>
  id === undefined ? skipToken : input(id);
