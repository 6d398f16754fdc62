import { paths } from '@/config/paths';
import { parseId } from '@/lib/ids';
import { publicInstructionPath, savedAtHeader } from '@/lib/offline-copy';

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
