/**
 * Registers /sw.js (src/service-worker/sw.ts), which keeps the QR code's public page readable
 * offline, once the page has loaded, so that it does not compete with the page's first load.
 * Only a production build has a worker: `npm run dev` serves modules the worker does not know.
 */
export function registerServiceWorker() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener(
    'load',
    () => {
      // Without a worker (a private window may refuse one) every page works as before, only
      // not offline: nothing to tell the reader.
      navigator.serviceWorker.register('/sw.js').catch(() => undefined);
    },
    { once: true },
  );
}
