import { strings } from './strings';

export type RestResult<T> =
  | { ok: true; data: T }
  /** `status` is 0 when the server could not be reached. */
  | { ok: false; status: number; message: string };

/**
 * A REST failure thrown where a query or mutation expects a rejection: the envelope's Russian
 * message and the HTTP status (0 when the server could not be reached), which `isClientError`
 * and `errorMessage` read.
 */
export class RestError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'RestError';
    this.status = status;
  }
}

/** The data of a successful answer; a failure thrown as a `RestError`. */
export function restData<T>(result: RestResult<T>): T {
  if (!result.ok) throw new RestError(result.status, result.message);
  return result.data;
}

type Envelope = {
  success: boolean;
  data?: unknown;
  errorMessage?: string | null;
  /** A refusal's stable reason, kebab-case (`no-open-attempt`), where it has one. */
  errorCode?: string;
  /** Every failure's machine reason, UPPER_SNAKE (`NOT_FOUND`, `NO_OPEN_ATTEMPT`). */
  reason?: string;
};

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === 'object' && body !== null && typeof (body as Envelope).success === 'boolean';

/**
 * Unwraps the envelope `{success, data, errorMessage}` (DESIGN §5) of a REST answer. A
 * failure carries the server's Russian message, or the spec's generic one when the server
 * did not answer with an envelope.
 */
export async function readEnvelope<T>(response: Response): Promise<RestResult<T>> {
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

/**
 * `fetch` to the gateway's REST surface (same origin, with cookies), its envelope unwrapped,
 * with the answer's headers (none when the server could not be reached).
 */
export async function fetchRestWithHeaders<T>(
  path: string,
  init: RequestInit = {},
): Promise<{ result: RestResult<T>; headers?: Headers }> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    return { result: { ok: false, status: 0, message: strings.errors.network } };
  }
  return { result: await readEnvelope<T>(response), headers: response.headers };
}

/** `fetch` to the gateway's REST surface (same origin, with cookies), its envelope unwrapped. */
export async function fetchRest<T>(path: string, init: RequestInit = {}): Promise<RestResult<T>> {
  return (await fetchRestWithHeaders<T>(path, init)).result;
}

/** POSTs JSON (or nothing) to the gateway's REST surface; see `fetchRest`. */
export function postRest<T>(path: string, body?: unknown): Promise<RestResult<T>> {
  return fetchRest<T>(path, {
    method: 'POST',
    headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
