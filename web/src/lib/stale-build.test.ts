import { afterEach, describe, expect, it } from 'vitest';

import { isStaleBuildError, markReloadForNewBuild, mayReloadForNewBuild, reloadGuardMs } from './stale-build';

describe('a route file that did not load', () => {
  afterEach(() => sessionStorage.clear());

  it('is told by what each browser says about a failed import()', () => {
    for (const message of [
      'Failed to fetch dynamically imported module: https://portal/assets/a-1.js',
      'error loading dynamically imported module: https://portal/assets/a-1.js',
      'Importing a module script failed.',
      'Unable to preload CSS for /assets/a-1.css',
    ]) {
      expect(isStaleBuildError(new TypeError(message))).toBe(true);
    }
    expect(isStaleBuildError(new Error('x is undefined'))).toBe(false);
    expect(isStaleBuildError(undefined)).toBe(false);
  });

  it('reloads the page once per guard time, however often it fails', () => {
    const now = 1_000_000_000;
    expect(mayReloadForNewBuild(now)).toBe(true);
    expect(markReloadForNewBuild(now)).toBe(true);
    expect(mayReloadForNewBuild(now + 1_000)).toBe(false);
    expect(mayReloadForNewBuild(now + reloadGuardMs - 1)).toBe(false);
    expect(mayReloadForNewBuild(now + reloadGuardMs + 1)).toBe(true);
  });
});
