// Issue 37 point 17: whoever works the portal from the keyboard sees where the focus is on
// every button (MUI's own sign was a faint ripple, lost on a filled button).
import type { Page } from '@playwright/test';

import { admin, type Account, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

/**
 * Tabs through the page (at most `steps` times) and names each button or link that took the
 * focus with no outline to show it.
 */
async function focusWithoutOutline(page: Page, steps: number) {
  const unseen: string[] = [];
  const visited = new Set<string>();
  for (let step = 0; step < steps; step++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      if (!(element instanceof HTMLElement) || element === document.body) return undefined;
      // A text field shows its focus by its own frame (MUI's 2 px border in the theme's colour).
      if (element.matches('input:not([type="radio"]):not([type="checkbox"]), textarea')) {
        return undefined;
      }
      const style = getComputedStyle(element);
      // `auto`: the browser's own focus ring (a plain link's), drawn 2 px wide whatever it says.
      const shown =
        style.outlineStyle === 'auto' ||
        (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2);
      const name = (element.getAttribute('aria-label') ?? element.textContent).trim().slice(0, 40);
      return { name: `${element.tagName.toLowerCase()} «${name}»`, shown };
    });
    if (!focused || visited.has(focused.name)) continue;
    visited.add(focused.name);
    if (!focused.shown) unseen.push(focused.name);
  }
  return { unseen, visited: visited.size };
}

const pages: [string, Account, string][] = [
  ['the home page', nurse, '/home'],
  ['a test', nurse, '/courses/1/article/1/test/1'],
  ['the admin courses', admin, '/admin/education/courses'],
];

for (const [name, viewport] of Object.entries({ desktop, phone })) {
  for (const [what, account, path] of pages) {
    test(`${name}: every control of ${what} shows the keyboard's focus`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await signIn(page, account);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await page.waitForLoadState('networkidle');
      const { unseen, visited } = await focusWithoutOutline(page, 30);
      expect(visited).toBeGreaterThan(5);
      expect(unseen).toEqual([]);
    });
  }
}
