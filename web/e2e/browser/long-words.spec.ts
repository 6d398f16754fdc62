// Issue 19 point 11: a title of long words (a drug, a device's model code, a compound
// Russian word) must not widen a phone's page, and a breadcrumb shortens it instead of
// taking several lines.
import { request as requests, type Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { restAs, seedWorld } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

const phone = { width: 360, height: 760 };
const tag = Date.now().toString(36);
/** A 52-character word, unique to this run. */
const word = `Длинноесловобезпробелов${tag}`.padEnd(52, 'ю');
const long = (what: string) => `${what} ${word}`;
const learner = { login: `long${tag}`, password: `long-${tag}-password` };

let world: Awaited<ReturnType<typeof seedWorld>>;

test.beforeAll(async () => {
  const request = await requests.newContext({ baseURL: process.env.PORTAL_E2E_URL });
  world = await seedWorld(await restAs(request, admin), long, learner.login, learner.password);
  await request.dispose();
});

/** Opens `path`, waits for `what`'s long title, and says whether the page scrolls sideways. */
async function scrollsSideways(page: Page, path: string, what: string) {
  await page.goto(path);
  await expect(page.getByText(long(what)).filter({ visible: true }).first()).toBeVisible();
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollWidth > root.clientWidth ? `${root.scrollWidth} px wide` : '';
  });
}

async function widePages(page: Page, pages: [string, string][]) {
  const wide: string[] = [];
  for (const [path, what] of pages) {
    const width = await scrollsSideways(page, path, what);
    if (width) wide.push(`${path}: ${width}`);
  }
  return wide;
}

test('at 360 px no learner page scrolls sideways with 52-character words in its titles', async ({
  page,
  saveScreenshot,
}) => {
  await page.setViewportSize(phone);
  await signIn(page, learner);
  const course = `/courses/${world.course}`;
  const article = `${course}/article/${world.article}`;
  const model = `/departments/environments/${world.department}/environment/${world.model}`;
  const wide = await widePages(page, [
    ['/cabinet', 'Фамилия'],
    ['/courses', 'Курс'],
    [course, 'Статья'],
    [article, 'Текст'],
    [`${article}/test/${world.test}`, 'Описание теста'],
    ['/departments', 'Отделение'],
    [`/departments/environments/${world.department}`, 'Модель'],
    [`${model}/documentation`, 'Описание модели'],
    [`${model}/short-instruction`, 'Инструкция'],
  ]);
  expect(wide).toEqual([]);
  // The questions of a started test as well.
  await page.goto(`${article}/test/${world.test}`);
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await expect(page.getByText(long('Верный ответ'), { exact: true })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
  await saveScreenshot('long-words-test-phone');
});

test('at 360 px no admin page scrolls sideways with 52-character words in its titles', async ({ page }) => {
  await page.setViewportSize(phone);
  await signIn(page, admin);
  const wide = await widePages(page, [
    ['/admin/education/courses', 'Курс'],
    [`/admin/education/courses/${world.course}`, 'Курс'],
    ['/admin/education/articles', 'Статья'],
    [`/admin/education/articles/${world.article}`, 'Статья'],
    ['/admin/education/tests', 'Тест'],
    [`/admin/education/tests/${world.test}`, 'Тест'],
    ['/admin/users-management/admin-departments', 'Отделение'],
    [`/admin/users-management/admin-departments/${world.department}`, 'Отделение'],
    ['/admin/users-management/admin-users', 'Фамилия'],
    [`/admin/users-management/admin-users/${world.user}`, 'Имя'],
    ['/admin/equipments/equipment-models', 'Модель'],
    [`/admin/equipments/equipment-models/${world.model}`, 'Модель'],
  ]);
  expect(wide).toEqual([]);
});

test('a breadcrumb shortens a long title to one line and shows it whole on hover', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, learner);
  await page.setViewportSize(phone);
  await page.goto(`/courses/${world.course}/article/${world.article}`);
  const trail = page.getByRole('navigation', { name: 'Навигационная цепочка' });
  const crumb = trail.getByRole('link', { name: long('Курс') });
  await expect(crumb).toBeVisible();
  const shortened = (locator: typeof crumb) =>
    locator.evaluate((element) => {
      const style = getComputedStyle(element);
      const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
      return (
        style.textOverflow === 'ellipsis' &&
        element.scrollWidth > element.clientWidth &&
        element.getBoundingClientRect().height < lineHeight * 1.5
      );
    });
  expect(await shortened(crumb)).toBe(true);
  expect(await shortened(trail.getByText(long('Статья')))).toBe(true);
  await saveScreenshot('long-words-breadcrumb-phone', { fullPage: false });

  await page.setViewportSize({ width: 1280, height: 800 });
  await crumb.hover();
  await expect(page.getByRole('tooltip')).toHaveText(long('Курс'));
});
