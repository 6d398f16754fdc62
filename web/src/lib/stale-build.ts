// A tab opened before a deploy still runs the old build: the route files it knows by name
// (hashed, e.g. `cabinet-page-R4wlm_y5.js`) are gone from the server, so the next page it
// opens fails to load its code. One reload fetches the new build's index.html and all is well
// again; a reload that did not help must not be repeated forever (the server down, a proxy
// serving an error page), so the reload leaves a mark in this tab's sessionStorage with its time.

const reloadMarkKey = 'portal.reloaded-for-new-build';
/** A second failure within this time of the reload is not a deploy: ask the person instead. */
export const reloadGuardMs = 60_000;

// What each engine says when a dynamic import() or Vite's preload of a route's files fails:
// Chromium, Firefox, Safari, and Vite's own CSS preload.
const importFailures = [
  /Failed to fetch dynamically imported module/i,
  /error loading dynamically imported module/i,
  /Importing a module script failed/i,
  /Unable to preload CSS/i,
];

/** Whether `error` is a route's code that did not load (a new build replaced it, or no network). */
export function isStaleBuildError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return importFailures.some((pattern) => pattern.test(message));
}

function readReloadMark(): number | undefined {
  const stored = sessionStorage.getItem(reloadMarkKey);
  const time = stored === null ? NaN : Number(stored);
  return Number.isFinite(time) ? time : undefined;
}

/**
 * Whether the page may reload by itself to the new build now: the browser is online (offline,
 * a reload would only show the browser's own error page) and this tab has not done so within
 * `reloadGuardMs`. A storage that refuses counts as "not allowed": no mark, no loop.
 */
export function mayReloadForNewBuild(now = Date.now()): boolean {
  if (!navigator.onLine) return false;
  try {
    const last = readReloadMark();
    return last === undefined || now - last > reloadGuardMs || now < last;
  } catch {
    return false;
  }
}

/**
 * Notes the reload about to be made (see `mayReloadForNewBuild`); false when it cannot be
 * noted, and then the page must not reload by itself: the guard would not hold.
 */
export function markReloadForNewBuild(now = Date.now()): boolean {
  try {
    sessionStorage.setItem(reloadMarkKey, String(now));
    return true;
  } catch {
    return false;
  }
}

/** The browser's reload, on its own so that tests can stand in for it. */
export function reloadPage() {
  window.location.reload();
}
