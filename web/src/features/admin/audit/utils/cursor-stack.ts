// The journal's pages by cursor (issue 25): a page deep in the journal costs what the first
// does, but a cursor only leads forward, so «Назад» goes back along the cursors that led here.

/** The cursors of the pages that led here, the first page's `null`; the last opens this page. */
export type CursorStack = readonly (string | null)[];

export const firstPage: CursorStack = [null];

/** The page the stack stands on, from 1. */
export const pageNumber = (stack: CursorStack) => stack.length;

/** The cursor that opens the page the stack stands on (`null`: the first page). */
export const current = (stack: CursorStack): string | null => stack[stack.length - 1] ?? null;

/** On to the page after this one, which the page's `nextCursor` opens. */
export const forward = (stack: CursorStack, nextCursor: string): CursorStack => [...stack, nextCursor];

/** Back to the page before, whose cursor is kept; the first page stays. */
export const back = (stack: CursorStack): CursorStack => (stack.length > 1 ? stack.slice(0, -1) : stack);
