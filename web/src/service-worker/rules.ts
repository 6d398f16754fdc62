import { paths } from '@/config/paths';
import { parseId } from '@/lib/ids';
import { publicInstructionPath, savedAtHeader } from '@/lib/offline-copy';

/** The most models whose instructions a phone keeps; the least recently opened go first. */
export const keptModels = 30;
/** How long a saved instruction is kept without being saved again (opened with the network). */
export const keptDays = 90;
const dayMillis = 24 * 60 * 60 * 1000;
/** On a saved instruction: when it was last opened from the copy (ISO 8601); the worker's own. */
export const openedAtHeader = 'X-Portal-Opened-At';

/**
 * What the worker does with a request. Anything else it leaves alone (no `respondWith`), so
 * that sign-in, grpc-web streams, uploads, downloads and every other page reach the network
 * exactly as they would without a worker, and nothing of theirs is ever kept.
 */
export type Handling =
  /** Opening a public instruction page: the network, or the saved shell without one. */
  | 'public-page'
  /** A file of the public page's shell (index.html, its scripts and styles): the saved copy. */
  | 'shell-file'
  /** The public instruction read: the network (without cookies), or the saved copy. */
  | 'instruction'
  /** A picture on a public instruction page: the network, or the copy saved with the instruction. */
  | 'instruction-image';

export type RequestFacts = Pick<Request, 'url' | 'method' | 'mode' | 'destination' | 'referrer'>;

const [publicPagePrefix = ''] = paths.publicShortInstruction.split(':');

/** The model whose instruction a page address shows, if it is the QR code's public page. */
export function publicPageModel(url: string): bigint | undefined {
  const { pathname } = new URL(url);
  if (!pathname.startsWith(publicPagePrefix)) return undefined;
  return parseId(pathname.slice(publicPagePrefix.length).replace(/\/$/, ''));
}

/** How the worker answers `request`; undefined: it does not (see `Handling`). */
export function handlingOf(
  request: RequestFacts,
  origin: string,
  shellFiles: ReadonlySet<string>,
): Handling | undefined {
  if (request.method !== 'GET') return undefined;
  const url = new URL(request.url);
  if (url.origin !== origin) return undefined;
  if (request.mode === 'navigate') {
    return publicPageModel(request.url) === undefined ? undefined : 'public-page';
  }
  if (url.pathname === publicInstructionPath) return 'instruction';
  if (shellFiles.has(url.pathname)) return 'shell-file';
  // Same-origin requests carry the whole page address as referrer (strict-origin-when-cross-origin).
  const fromPublicPage = request.referrer !== '' && publicPageModel(request.referrer) !== undefined;
  if (request.destination === 'image' && fromPublicPage) return 'instruction-image';
  return undefined;
}

/**
 * The portal's own pictures in an instruction's HTML, as absolute addresses: what is saved
 * with it. Pictures in the HTML itself (`data:`) come with the instruction; other sites'
 * are not shown at all (the gateway's CSP allows images from the portal only). The wiki's
 * cleaner writes every attribute in double quotes with `&` as `&amp;`.
 */
export function instructionImages(html: string, origin: string): string[] {
  const found = new Set<string>();
  for (const [, source = ''] of html.matchAll(/<img\b[^>]*?\ssrc="([^"]*)"/gi)) {
    let url: URL;
    try {
      url = new URL(source.replaceAll('&amp;', '&'), origin);
    } catch {
      continue;
    }
    if (url.origin === origin) found.add(url.href);
  }
  return [...found];
}

/**
 * `response` as the worker keeps it: the same answer, marked with when it was saved. Its body
 * is kept as the browser decoded it, so the network's encoding and length do not describe it.
 */
export async function withSavedAt(response: Response, savedAt: Date): Promise<Response> {
  const headers = new Headers(response.headers);
  headers.delete('Content-Encoding');
  headers.delete('Content-Length');
  headers.set(savedAtHeader, savedAt.toISOString());
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** `saved`, the worker's copy, marked as opened at `openedAt` (a copy opened without network). */
export async function withOpenedAt(saved: Response, openedAt: Date): Promise<Response> {
  const headers = new Headers(saved.headers);
  headers.set(openedAtHeader, openedAt.toISOString());
  return new Response(await saved.arrayBuffer(), {
    status: saved.status,
    statusText: saved.statusText,
    headers,
  });
}

/** A saved instruction as pruning sees it. */
export type SavedInstruction = {
  url: string;
  /** When it was saved (Unix ms); 0 when unknown. */
  savedAt: number;
  /** When it was last opened, from the network (saved again then) or from the copy (Unix ms). */
  openedAt: number;
  /** The portal's pictures it shows, saved beside it. */
  images: readonly string[];
};

type Envelope = { data?: { shortInstruction?: unknown } };

/** The HTML of a public instruction answer (the REST envelope); undefined for anything else. */
export async function instructionHtml(response: Response): Promise<string | undefined> {
  const envelope = (await response.json().catch(() => undefined)) as Envelope | undefined;
  const html = envelope?.data?.shortInstruction;
  return typeof html === 'string' ? html : undefined;
}

const instant = (value: string | null) => {
  const millis = value === null ? Number.NaN : Date.parse(value);
  return Number.isNaN(millis) ? 0 : millis;
};

/** What pruning needs of the saved copy `saved` of the instruction read `url`. */
export async function savedInstruction(
  url: string,
  saved: Response,
  origin: string,
): Promise<SavedInstruction> {
  const savedAt = instant(saved.headers.get(savedAtHeader));
  const html = await instructionHtml(saved);
  return {
    url,
    savedAt,
    openedAt: Math.max(savedAt, instant(saved.headers.get(openedAtHeader))),
    images: html === undefined ? [] : instructionImages(html, origin),
  };
}

/**
 * What to delete of the saved copies so that a phone does not fill up with every model it was
 * ever near: instructions saved over `keptDays` ago, those beyond the `keptModels` most
 * recently opened, and every picture no kept instruction shows (its instruction dropped, or
 * changed to show others).
 */
export function toPrune(
  saved: readonly SavedInstruction[],
  images: readonly string[],
  now: number,
): string[] {
  const fresh = saved.filter((copy) => now - copy.savedAt <= keptDays * dayMillis);
  const kept = [...fresh].sort((a, b) => b.openedAt - a.openedAt).slice(0, keptModels);
  const keptUrls = new Set(kept.map((copy) => copy.url));
  const shown = new Set(kept.flatMap((copy) => copy.images));
  return [
    ...saved.filter((copy) => !keptUrls.has(copy.url)).map((copy) => copy.url),
    ...images.filter((image) => !shown.has(image)),
  ];
}
