import { ConnectError } from '@connectrpc/connect';

import { strings } from './strings';

// The services put a Russian message meant for a person into every error status
// (DESIGN §5); anything else (network, a bug) gets the spec's default text.
export function errorMessage(error: unknown): string {
  if (error instanceof ConnectError && error.rawMessage) return error.rawMessage;
  return strings.errors.loadFailed;
}
