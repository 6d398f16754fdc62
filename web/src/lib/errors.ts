import { Code, ConnectError } from '@connectrpc/connect';

import { RestError } from './rest';
import { strings } from './strings';

// The services put a Russian message meant for a person into every error status, and the
// gateway into every REST envelope (DESIGN §5); anything else (a bug) gets the spec's
// default text.
export function errorMessage(error: unknown): string {
  if (error instanceof ConnectError && error.rawMessage) return error.rawMessage;
  if (error instanceof RestError && error.message) return error.message;
  return strings.errors.loadFailed;
}

// Answers that asking again cannot change: the request itself, or who asks, is the reason.
const clientCodes: ReadonlySet<Code> = new Set([
  Code.InvalidArgument,
  Code.NotFound,
  Code.AlreadyExists,
  Code.PermissionDenied,
  Code.FailedPrecondition,
  Code.OutOfRange,
  Code.Unimplemented,
  Code.Unauthenticated,
]);

/**
 * Whether a failed call was refused for what it asked (a missing or foreign id, a bad
 * argument, no session): a grpc-web error status of that kind, or a REST failure (the
 * envelope's `RestResult`, thrown) with a 4xx status. Repeating such a call only delays the
 * answer; a server or network failure may pass.
 */
export function isClientError(error: unknown): boolean {
  if (error instanceof ConnectError) return clientCodes.has(error.code);
  if (typeof error !== 'object' || error === null || !('status' in error)) return false;
  const { status } = error;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * A query's `meta` when its page says itself that the thing is missing or not the reader's
 * (`components/not-found`): such a refusal is not also a toast.
 */
export const refusalShownByPage = { refusalShownByPage: true } as const;

/** Whether a failed query's refusal is shown by its page rather than by a toast. */
export const refusalShown = (error: unknown, meta: Record<string, unknown> | undefined) =>
  meta?.refusalShownByPage === true && isClientError(error);

/**
 * The query client's `retry`: a server or network failure is asked again up to three
 * times (TanStack's default), a refusal never, so a missing or foreign page says so at once.
 */
export const retryUnlessRefused = (failureCount: number, error: unknown) =>
  failureCount < 3 && !isClientError(error);
