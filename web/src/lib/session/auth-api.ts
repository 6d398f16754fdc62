import { Code, ConnectError } from '@connectrpc/connect';

import { postRest } from '@/lib/rest';

import { endSession, startSession } from './session';
import type { AccessToken } from './sign-in';

// The three session calls (sign-in is in ./sign-in) go over REST, not grpc-web: only there
// can the gateway keep the refresh token in the HttpOnly cookie `portal_refresh` (Path=/api/auth).

/**
 * Exchanges the refresh cookie for a new access token and stores it. Null when the server
 * refuses the session (it has expired or was revoked); throws when the server could not
 * answer, so that a network hiccup does not sign anybody out.
 */
export async function refreshSession(): Promise<string | null> {
  const result = await postRest<AccessToken>('/api/auth/refresh-token');
  if (result.ok) return startSession(result.data.accessToken) ? result.data.accessToken : null;
  if (result.status === 0 || result.status === 429 || result.status >= 500) {
    throw new ConnectError(result.message, Code.Unavailable);
  }
  return null;
}

/** Revokes the session on the server (best effort) and forgets it here. */
export async function signOut(): Promise<void> {
  await postRest('/api/auth/logout');
  endSession();
}
