// Issue 19 point 13: whatever is missing (an unknown id, another department's model, a model
// with no unit in this department, an unknown course) reads the same: one message naming it,
// no toast on top, and a breadcrumb that shows neither a raw id nor the name of what the
// page says it cannot find.
import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// Demo data: the nurse works in departments 1 (ICU) and 2 (surgery), not 3 (cardiology); the
// electrosurgical unit (model 4) stands in surgery only (services/*/src/demo.rs, bootstrap.rs).
const cases = [
  {
    what: 'an unknown model',
    path: '/departments/environments/1/environment/9999',
    says: 'Модель оборудования не найдена.',
  },
  {
    what: "another department's model",
    path: '/departments/environments/3/environment/1',
    says: 'Отделение не найдено.',
  },
  {
    what: 'a model without a unit here',
    path: '/departments/environments/1/environment/4',
    says: 'Модель оборудования не найдена.',
  },
  { what: 'an unknown course', path: '/courses/999', says: 'Курс не найден.' },
  { what: 'an unknown article', path: '/courses/1/article/999', says: 'Статья не найдена.' },
];

for (const width of [1280, 360]) {
  test(`at ${width} px a missing course, article, department or model says so once, by name`, async ({
    page,
    saveScreenshot,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    await signIn(page, nurse);
    for (const { what, path, says } of cases) {
      await test.step(what, async () => {
        await page.goto(path);
        await expect(page.getByRole('heading', { name: says })).toBeVisible();
        // Every call of the page has answered: nothing more is coming.
        await page.waitForLoadState('networkidle');
        await expect(page.getByText(says)).toHaveCount(1);
        // No toast («Файл не найден», the server's own «… не найдена») and no second alert.
        await expect(page.getByRole('alert')).toHaveCount(0);
        const trail = page.getByRole('navigation', { name: 'Навигационная цепочка' });
        await expect(trail.locator('[aria-current="page"]')).toHaveText('Не найдено');
        await expect(trail).not.toContainText(/\d{3}|Force FX|BeneView/);
        await expect(page.getByRole('link', { name: /К списку|На главную/ })).toBeVisible();
      });
    }
    await saveScreenshot(`not-found-course-${width}`, { fullPage: false });
  });
}
