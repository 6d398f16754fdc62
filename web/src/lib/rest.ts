import { strings } from './strings';

export type RestResult<T> =
  | { ok: true; data: T }
  /** `status` is 0 when the server could not be reached. */
  | { ok: false; status: number; message: string };

type Envelope = { success: boolean; data?: unknown; errorMessage?: string | null };

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === 'object' && body !== null && typeof (body as Envelope).success === 'boolean';

/**
 * POSTs JSON to the gateway's REST surface and unwraps its envelope `{success, data,
 * errorMessage}` (DESIGN §5). Same origin, with cookies. A failure carries the server's
 * Russian message, or the spec's generic one when the server could not be reached or
 * did not answer with an envelope.
 */
export async function postRest<T>(path: string, body?: unknown): Promise<RestResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, message: strings.errors.network };
  }
  const envelope: unknown = await response.json().catch(() => undefined);
  if (!isEnvelope(envelope)) {
    return { ok: false, status: response.status, message: strings.errors.network };
  }
  if (response.ok && envelope.success) return { ok: true, data: envelope.data as T };
  return {
    ok: false,
    status: response.status,
    message: envelope.errorMessage || strings.errors.network,
  };
}
