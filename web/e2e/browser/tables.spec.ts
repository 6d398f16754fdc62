// Issue 37 point 15: on a phone the compliance table («Выполнение курса») shrank its columns
// to one letter a line. Every table now keeps its words whole (headers, «Баллы», «Пройден»,
// dates like 02-12-2026 never break inside), scrolls sideways in its own box when it does not
// fit — its first column staying in view — and never widens the page.
import type { Page } from '@playwright/test';

import { admin, type Account, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

/** What is wrong with the tables on the page as laid out now; empty when nothing is. */
function tableTroubles(page: Page) {
  return page.evaluate(() => {
    const troubles: string[] = [];
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth) troubles.push(`the page is ${root.scrollWidth} px wide`);
    for (const table of Array.from(document.querySelectorAll('table'))) {
      const name = table.getAttribute('aria-label') ?? 'a table';
      // A word broken across lines: its letters lie on more than one line.
      const words = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
      for (let node = words.nextNode(); node; node = words.nextNode()) {
        // Longer runs without a space are no words (a hash, a file's address): they may wrap.
        for (const word of (node.textContent ?? '').matchAll(/(?<!\S)\S{1,24}(?!\S)/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          const lines = new Set(
            Array.from(range.getClientRects())
              .filter((rect) => rect.width > 0)
              .map((rect) => Math.round(rect.top)),
          );
          if (lines.size > 1) troubles.push(`${name}: «${word[0]}» is broken across ${lines.size} lines`);
        }
      }
      // A table wider than its box scrolls there, and its first column stays in view.
      const box = table.parentElement;
      const first = table.querySelector('tr > :first-child');
      if (!box || !first) continue;
      if (box.scrollWidth > box.clientWidth + 1) {
        if (getComputedStyle(box).overflowX !== 'auto') troubles.push(`${name}: does not scroll in its box`);
        box.scrollLeft = box.scrollWidth;
        const shift = first.getBoundingClientRect().left - box.getBoundingClientRect().left;
        if (Math.abs(shift) > 1) troubles.push(`${name}: its first column scrolled away (${shift} px)`);
        box.scrollLeft = 0;
      }
    }
    return troubles;
  });
}

/** Opens each page, waits for its table, and collects what is wrong with its tables. */
async function troublesOn(page: Page, pages: [path: string, table: string | RegExp][]) {
  const found: string[] = [];
  for (const [path, table] of pages) {
    await page.goto(path);
    await expect(page.getByRole('table', { name: table }).first()).toBeVisible();
    found.push(...(await tableTroubles(page)).map((trouble) => `${path}: ${trouble}`));
  }
  return found;
}

const adminTables: [string, string | RegExp][] = [
  ['/admin/education/courses/1', 'Выполнение курса'],
  ['/admin/education/tests/1', 'Анализ вопросов'],
  ['/admin/statistics', /Гигиена рук: /],
  ['/admin/audit', 'Записи журнала действий'],
  ['/admin/users-management/admin-users/2', 'Записи журнала действий'],
  ['/departments/maintenance-due', 'Плановое обслуживание'],
];

const learnerTables: [string, string | RegExp][] = [
  ['/my-statistics', 'Моя статистика'],
  ['/courses/1/article/1/test/1', 'Предыдущие попытки'],
];

for (const [name, viewport] of Object.entries({ desktop, phone })) {
  for (const [who, account, tables] of [
    ['admin', admin, adminTables],
    ['learner', nurse, learnerTables],
  ] as [string, Account, typeof adminTables][]) {
    test(`${name}: every ${who} table keeps its words whole and its first column in view`, async ({
      page,
    }) => {
      await page.setViewportSize(viewport);
      await signIn(page, account);
      expect(await troublesOn(page, tables)).toEqual([]);
    });
  }
}

test('phone: the compliance table scrolls sideways with the person fixed', async ({
  page,
  saveScreenshot,
}) => {
  await page.setViewportSize(phone);
  await signIn(page, admin);
  await page.goto('/admin/education/courses/1');
  const compliance = page.getByRole('table', { name: 'Выполнение курса' });
  const person = compliance.getByRole('cell', { name: 'Смирнова Ольга Викторовна' });
  await expect(person).toBeVisible();
  await compliance.scrollIntoViewIfNeeded();
  await saveScreenshot('compliance-phone', { fullPage: false });

  // One line a word: the person's name takes at most three lines, the header one.
  const header = compliance.getByRole('columnheader', { name: 'Тесты пройдены' });
  const lineHeight = (cell: typeof header) =>
    cell.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight));
  expect((await header.boundingBox())?.height).toBeLessThan((await lineHeight(header)) * 2);
  expect((await person.boundingBox())?.height).toBeLessThan((await lineHeight(person)) * 4);

  await compliance.evaluate((table) => table.parentElement?.scrollBy({ left: 1000 }));
  await expect(compliance.getByRole('columnheader', { name: 'Срок' })).toBeInViewport();
  await expect(person).toBeInViewport();
  await saveScreenshot('compliance-phone-scrolled', { fullPage: false });
});
