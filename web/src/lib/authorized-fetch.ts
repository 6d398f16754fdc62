import { readEnvelope, RestError, restData, type RestResult } from './rest';
import { renewSession } from './session/auth-api';
import { expireSession, getSession } from './session/session';
import { strings } from './strings';

/**
 * Sends a call with the access token, as the grpc-web calls send it: a 401 gets one refresh
 * and one repeat, and a second 401 ends the session (spec §4, §8).
 */
async function withRenewal(call: (token: string | undefined) => Promise<Response>): Promise<Response> {
  const sent = getSession()?.token;
  const response = await call(sent);
  if (response.status !== 401) return response;
  const renewed = await renewSession(sent).catch(() => undefined);
  if (renewed === undefined) return response;
  if (renewed === null) {
    expireSession();
    return response;
  }
  const repeated = await call(renewed);
  if (repeated.status === 401) expireSession();
  return repeated;
}

/**
 * `fetch` to the gateway's REST surface with the access token (see `withRenewal`). Rejects
 * as `fetch` does when the server cannot be reached.
 */
export function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  return withRenewal((token) => {
    const headers = new Headers(init.headers);
    if (token !== undefined) headers.set('Authorization', `Bearer ${token}`);
    return fetch(path, { credentials: 'same-origin', ...init, headers });
  });
}

/**
 * A JSON call to the REST surface with the access token (see `withRenewal`): a GET without
 * `body`, else a POST of `body` as JSON. Resolves to the envelope's data; a refusal or an
 * unreachable server rejects with a `RestError` carrying the Russian message.
 */
export async function callRest<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit =
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  let response: Response;
  try {
    response = await authorizedFetch(path, init);
  } catch {
    throw new RestError(0, strings.errors.network);
  }
  return restData(await readEnvelope<T>(response));
}

/** What an upload tells while it runs, and how it is stopped. */
export type UploadControl = {
  /** The share of the file sent so far, 0 to 1 (again from 0 when a refresh repeats it). */
  onProgress?: (sent: number) => void;
  /** Aborts the upload: the server gets a cut form and saves nothing. */
  signal?: AbortSignal;
};

// Statuses whose answer has no body: a Response with one cannot be made.
const noBody = new Set([204, 205, 304]);

/**
 * POSTs a form with XMLHttpRequest, the one browser API that reports upload progress; its
 * answer as a `Response`. Rejects with an AbortError when aborted, a TypeError when the
 * server cannot be reached (as `fetch` does).
 */
function postWithProgress(
  path: string,
  form: FormData,
  token: string | undefined,
  { onProgress, signal }: UploadControl,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const aborted = () => new DOMException('The upload was aborted', 'AbortError');
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const request = new XMLHttpRequest();
    const abort = () => request.abort();
    const settle = () => signal?.removeEventListener('abort', abort);
    request.open('POST', path);
    if (token !== undefined) request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      settle();
      const body = noBody.has(request.status) ? null : request.responseText;
      resolve(new Response(body, { status: request.status, statusText: request.statusText }));
    });
    request.addEventListener('error', () => {
      settle();
      reject(new TypeError('The server could not be reached'));
    });
    request.addEventListener('abort', () => {
      settle();
      reject(aborted());
    });
    signal?.addEventListener('abort', abort);
    onProgress?.(0);
    request.send(form);
  });
}

/**
 * POSTs a multipart form (a document, a video) with the access token, reporting progress,
 * and unwraps the envelope. Uploads go over REST because a browser cannot stream a request
 * body over grpc-web (DESIGN §11). An aborted upload answers `strings.upload.cancelled`.
 */
export async function postForm<T>(
  path: string,
  form: FormData,
  control: UploadControl = {},
): Promise<RestResult<T>> {
  try {
    return await readEnvelope<T>(await withRenewal((token) => postWithProgress(path, form, token, control)));
  } catch (error) {
    const cancelled = error instanceof DOMException && error.name === 'AbortError';
    return { ok: false, status: 0, message: cancelled ? strings.upload.cancelled : strings.errors.network };
  }
}
