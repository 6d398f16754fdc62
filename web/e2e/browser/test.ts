import { resolve } from 'node:path';

import { test as base } from '@playwright/test';

export { expect } from '@playwright/test';

const screenshotDir = resolve(import.meta.dirname, '../screenshots');

type Fixtures = {
  /** Saves the page (whole, or only what is in view) to e2e/screenshots/<name>.png, for a person to look at. */
  saveScreenshot: (name: string, options?: { fullPage?: boolean }) => Promise<void>;
};

export const test = base.extend<Fixtures>({
  // Known only once global setup has started the server, so read in the worker.
  baseURL: async ({}, use) => {
    await use(process.env.PORTAL_E2E_URL);
  },
  saveScreenshot: async ({ page }, use) => {
    await use(async (name, { fullPage = true } = {}) => {
      await page.screenshot({
        path: resolve(screenshotDir, `${name}.png`),
        fullPage,
        animations: 'disabled',
      });
    });
  },
});
