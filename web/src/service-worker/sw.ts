// The portal's service worker (/sw.js, built by tooling/service-worker.ts): it keeps the QR
// code's public instruction page readable on a phone with no signal once it has been opened,
// and nothing else. Only public data is kept (a ward PC or a phone is shared): the page's
// shell, the instruction read without cookies and its pictures. Every other request is left
// to the browser (see `handlingOf`).

import { publicInstructionPath, publicInstructionUrl } from '@/lib/offline-copy';

import {
  handlingOf,
  instructionHtml,
  instructionImages,
  publicPageModel,
  savedInstruction,
  toPrune,
  withOpenedAt,
  withSavedAt,
} from './rules';

declare const self: ServiceWorkerGlobalScope;
/** The public page's shell as this build wrote it: index.html, its scripts and styles (absolute paths). */
declare const __SHELL_FILES__: string[];
/** Names the shell's cache: a new build's shell is saved beside the old one, which goes once it is active. */
declare const __SHELL_VERSION__: string;

const shellPrefix = 'portal-shell-';
const shellCache = `${shellPrefix}${__SHELL_VERSION__}`;
/** Public instructions (REST answers marked with `savedAtHeader`) and their pictures. */
const instructionCache = 'portal-public-instructions';
const shellFiles = new Set(__SHELL_FILES__);

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      await (await caches.open(shellCache)).addAll(__SHELL_FILES__);
      // The worker answers for few requests, each the same in every build: no reason to wait
      // until every tab of the old build is closed.
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const old = (await caches.keys()).filter((name) => name.startsWith(shellPrefix) && name !== shellCache);
      await Promise.all(old.map((name) => caches.delete(name)));
      await self.clients.claim();
      // A page opened before the worker was there read its instruction without it: save it now,
      // so that the first visit is enough.
      const pages = await self.clients.matchAll({ type: 'window' });
      await Promise.all(
        pages.map(async (page) => {
          const model = publicPageModel(page.url);
          if (model === undefined) return;
          const url = new URL(publicInstructionUrl(model), self.location.origin).href;
          const response = await fetch(url, { credentials: 'omit' }).catch(() => undefined);
          if (response?.ok) await saveInstruction(url, response);
        }),
      );
      await prune();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  switch (handlingOf(request, self.location.origin, shellFiles)) {
    case 'public-page':
      event.respondWith(networkOr(request, () => caches.match('/index.html', { cacheName: shellCache })));
      break;
    case 'shell-file':
      event.respondWith(
        (async () => (await caches.match(request, { cacheName: shellCache })) ?? fetch(request))(),
      );
      break;
    case 'instruction':
      event.respondWith(instruction(event));
      break;
    case 'instruction-image':
      event.respondWith(networkOr(request, () => savedCopy(request.url)));
      break;
    case undefined:
      break;
  }
});

/** The network's answer; `saved` when there is no network. */
async function networkOr(request: Request, saved: () => Promise<Response | undefined>): Promise<Response> {
  try {
    return await fetch(request);
  } catch {
    return (await saved()) ?? Response.error();
  }
}

const savedCopy = (url: string) => caches.match(url, { cacheName: instructionCache, ignoreVary: true });

/**
 * The instruction from the network, read without cookies so that what is saved is what
 * anyone may read, and saved with its pictures; the saved copy (marked with when it was
 * saved) when the network or the server fails. A model that is gone loses its copy.
 */
async function instruction(event: FetchEvent): Promise<Response> {
  const url = event.request.url;
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit' });
  } catch {
    return openCopy(event, url, Response.error());
  }
  if (response.status >= 500) return openCopy(event, url, response);
  if (response.ok) event.waitUntil(saveInstruction(url, response.clone()).then(() => prune()));
  if (response.status === 404) {
    event.waitUntil(caches.open(instructionCache).then((cache) => cache.delete(url)));
  }
  return response;
}

/** The saved copy of `url`, noted as opened now (what pruning keeps longest); `otherwise` without one. */
async function openCopy(event: FetchEvent, url: string, otherwise: Response): Promise<Response> {
  const saved = await savedCopy(url);
  if (!saved) return otherwise;
  // Cloned before the page reads the answer's body.
  const opened = withOpenedAt(saved.clone(), new Date());
  event.waitUntil(
    (async () => {
      const cache = await caches.open(instructionCache);
      await cache.put(url, await opened);
    })(),
  );
  return saved;
}

async function saveInstruction(url: string, response: Response): Promise<void> {
  const cache = await caches.open(instructionCache);
  await cache.put(url, await withSavedAt(response.clone(), new Date()));
  const html = await instructionHtml(response);
  if (html === undefined) return;
  // Pictures are saved as well as the network allows: a missing one only leaves a gap on the page.
  await Promise.all(
    instructionImages(html, self.location.origin).map(async (image) => {
      const picture = await fetch(image, { credentials: 'omit' }).catch(() => undefined);
      if (picture?.ok) await cache.put(image, picture);
    }),
  );
}

/** Drops the copies `toPrune` names: old ones, those of models not opened for long, stray pictures. */
async function prune(): Promise<void> {
  const cache = await caches.open(instructionCache);
  const saved = [];
  const images = [];
  for (const request of await cache.keys()) {
    if (new URL(request.url).pathname !== publicInstructionPath) {
      images.push(request.url);
      continue;
    }
    const copy = await cache.match(request, { ignoreVary: true });
    if (copy) saved.push(await savedInstruction(request.url, copy, self.location.origin));
  }
  await Promise.all(toPrune(saved, images, Date.now()).map((url) => cache.delete(url, { ignoreVary: true })));
}
