import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

import { renewSession } from './auth-api';
import { expireSession, getSession } from './session';

type AuthInterceptorDeps = {
  /** The access token to send now, if any. */
  getToken: () => string | undefined;
  /**
   * Renews the session after a call sent with `stale` was refused; the new token, or null
   * when the server refuses to.
   */
  refresh: (stale: string | undefined) => Promise<string | null>;
  /** Signs out after the server refused the session. */
  onExpired: () => void;
};

const isUnauthenticated = (error: unknown) =>
  error instanceof ConnectError && error.code === Code.Unauthenticated;

function authorize(request: { header: Headers }, token: string | undefined) {
  if (token === undefined) request.header.delete('Authorization');
  else request.header.set('Authorization', `Bearer ${token}`);
}

/**
 * Sends the access token with every call (spec §7). A call refused as Unauthenticated gets
 * one refresh and is repeated once with the new token; if there is no new token, or the
 * repeat is refused too, the session ends (spec §4, §8). Calls that fail together share
 * one refresh, and a call that was sent with a token already replaced is simply repeated;
 * other tabs of the browser take turns with this one (see `renewSession`).
 */
export function createAuthInterceptor({ getToken, refresh, onExpired }: AuthInterceptorDeps): Interceptor {
  let refreshing: Promise<string | null> | undefined;
  const refreshOnce = (stale: string | undefined) =>
    (refreshing ??= refresh(stale).finally(() => {
      refreshing = undefined;
    }));

  return (next) => async (request) => {
    const sent = getToken();
    authorize(request, sent);
    try {
      return await next(request);
    } catch (error) {
      if (!isUnauthenticated(error)) throw error;
      const current = getToken();
      const renewed = current !== undefined && current !== sent ? current : await refreshOnce(sent);
      if (renewed === null) {
        onExpired();
        throw error;
      }
      authorize(request, renewed);
      try {
        return await next(request);
      } catch (retryError) {
        if (isUnauthenticated(retryError)) onExpired();
        throw retryError;
      }
    }
  };
}

/** The portal's own: the session in localStorage, renewed through the refresh cookie. */
export const sessionInterceptor = createAuthInterceptor({
  getToken: () => getSession()?.token,
  refresh: (stale) => renewSession(stale),
  onExpired: expireSession,
});
