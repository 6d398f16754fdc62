import { strings } from '@/lib/strings';

import { renewSession } from './auth-api';
import { expireSession, getSession } from './session';

const request = (path: string, token: string | undefined) =>
  fetch(path, {
    credentials: 'same-origin',
    headers: token === undefined ? undefined : { Authorization: `Bearer ${token}` },
  });

/** The name a download offers (RFC 6266 `filename*`, else `filename`). */
export function attachmentName(disposition: string | null): string | undefined {
  if (disposition === null) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (encoded?.[1] !== undefined) {
    try {
      return decodeURIComponent(encoded[1]);
    } catch {
      // A malformed name: fall back to the plain one.
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1];
}

/**
 * Downloads a file from the REST surface with the session's token (a link could not send
 * it), renewing the session once on a 401 as every call does (spec §4), and saves it under
 * the name the server gives. Resolves to the Russian reason when it failed, else null.
 */
export async function downloadWithSession(path: string, fallbackName: string): Promise<string | null> {
  let response: Response;
  try {
    const token = getSession()?.token;
    response = await request(path, token);
    if (response.status === 401) {
      const renewed = await renewSession(token);
      if (renewed === null) {
        expireSession();
        return strings.session.expired;
      }
      response = await request(path, renewed);
    }
  } catch {
    return strings.errors.network;
  }
  if (!response.ok) {
    const envelope = (await response.json().catch(() => undefined)) as { errorMessage?: string } | undefined;
    return envelope?.errorMessage || strings.errors.loadFailed;
  }
  const blob = await response.blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = attachmentName(response.headers.get('Content-Disposition')) ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  return null;
}
