import { readEnvelope, type RestResult } from './rest';
import { renewSession } from './session/auth-api';
import { expireSession, getSession } from './session/session';
import { strings } from './strings';

function send(path: string, init: RequestInit, token: string | undefined) {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
  return fetch(path, { credentials: 'same-origin', ...init, headers });
}

/**
 * `fetch` to the gateway's REST surface with the access token, as the grpc-web calls send
 * it: a 401 gets one refresh and one repeat, and a second 401 ends the session (spec §4,
 * §8). Rejects as `fetch` does when the server cannot be reached.
 */
export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const sent = getSession()?.token;
  const response = await send(path, init, sent);
  if (response.status !== 401) return response;
  const renewed = await renewSession(sent).catch(() => undefined);
  if (renewed === undefined) return response;
  if (renewed === null) {
    expireSession();
    return response;
  }
  const repeated = await send(path, init, renewed);
  if (repeated.status === 401) expireSession();
  return repeated;
}

/**
 * POSTs a multipart form (a document, a video) with the access token and unwraps the
 * envelope. Uploads go over REST because a browser cannot stream a request body over
 * grpc-web (DESIGN §11).
 */
export async function postForm<T>(path: string, form: FormData): Promise<RestResult<T>> {
  try {
    return await readEnvelope<T>(await authorizedFetch(path, { method: 'POST', body: form }));
  } catch {
    return { ok: false, status: 0, message: strings.errors.network };
  }
}
