import { fetchRest, type RestResult } from './rest';
import { renewSession } from './session/auth-api';
import { expireSession, getSession } from './session/session';

const withToken = (token: string | undefined): HeadersInit =>
  token === undefined ? {} : { Authorization: `Bearer ${token}` };

/**
 * POSTs a multipart form (a document, a video) to the gateway's REST surface with the
 * access token, as the grpc-web calls send it: a 401 gets one refresh and one repeat, and
 * a second 401 ends the session (spec §4, §8). Uploads go over REST because a browser
 * cannot stream a request body over grpc-web (DESIGN §11).
 */
export async function postForm<T>(path: string, form: FormData): Promise<RestResult<T>> {
  const sent = getSession()?.token;
  const result = await fetchRest<T>(path, { method: 'POST', headers: withToken(sent), body: form });
  if (result.ok || result.status !== 401) return result;
  const renewed = await renewSession(sent).catch(() => undefined);
  if (renewed === null) {
    expireSession();
    return result;
  }
  if (renewed === undefined) return result;
  const repeated = await fetchRest<T>(path, { method: 'POST', headers: withToken(renewed), body: form });
  if (!repeated.ok && repeated.status === 401) expireSession();
  return repeated;
}
