import { Code, ConnectError } from '@connectrpc/connect';

import { postRest } from '@/lib/rest';
import { strings } from '@/lib/strings';

import { endSession, startSession } from './session';

// The three session calls go over REST, not grpc-web: only there can the gateway keep
// the refresh token in the HttpOnly cookie `portal_refresh` (Path=/api/auth).
type AccessToken = { accessToken: string; expiresIn: number };

export type SignInResult = { ok: true } | { ok: false; message: string };

/** Signs in and stores the session; a failure carries the server's message for the alert. */
export async function signIn(login: string, password: string): Promise<SignInResult> {
  const result = await postRest<AccessToken>('/api/auth/login', { login, password });
  if (!result.ok) return { ok: false, message: result.message };
  if (!startSession(result.data.accessToken)) return { ok: false, message: strings.errors.network };
  return { ok: true };
}

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
