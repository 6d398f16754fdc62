import { Code, ConnectError } from '@connectrpc/connect';

import { postRest } from '@/lib/rest';

import { endSession, getSession, startSession } from './session';
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

/** What renewing in turn needs of the Web Locks API (`navigator.locks`). */
export type TurnTaker = {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
};

// Browsers offer Web Locks only in secure contexts (https, localhost); elsewhere each tab
// renews on its own, as before.
const browserLocks = (): TurnTaker | undefined => (navigator as { locks?: TurnTaker }).locks;

/**
 * Renews the session in turn with the browser's other tabs. They share one refresh cookie,
 * which rotates on every use, and the server takes a rotated cookie presented again as theft
 * and ends the session (RFC 9700 §4.14), so two tabs must never present it at once. A tab
 * that waited for its turn first looks whether another tab has meanwhile stored a token other
 * than `stale` (the one its call was refused with) and uses that instead.
 */
export function renewSession(
  stale: string | undefined,
  locks: TurnTaker | undefined = browserLocks(),
): Promise<string | null> {
  const renew = async () => {
    const current = getSession()?.token;
    if (current !== undefined && current !== stale) return current;
    return refreshSession();
  };
  return locks ? locks.request('portal-refresh', renew) : renew();
}

/**
 * Revokes the session on the server (best effort) and forgets it here. A session of single
 * sign-on answers where the provider's session ends too: the browser goes there (and the
 * provider sends it back to the sign-in page), so `true` means this page is being left.
 */
export async function signOut(): Promise<boolean> {
  const result = await postRest<{ endSessionUrl?: string } | null>('/api/auth/logout');
  endSession();
  const endSessionUrl = result.ok ? result.data?.endSessionUrl : undefined;
  if (!endSessionUrl) return false;
  window.location.assign(endSessionUrl);
  return true;
}
