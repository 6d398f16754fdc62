import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const sectionHeadings = [
  { name: 'course', path: '/courses/1/article/2', heading: 'Раздел 3. Обучение и развитие' },
  {
    name: 'equipment',
    path: '/departments/environments/1/environment/1/documentation',
    heading: 'Раздел 7. Медицинское оборудование',
  },
  { name: 'home', path: '/home', heading: 'Неизвестный раздел' },
];

test.beforeEach(async ({ page }) => {
  await signIn(page, nurse);
});

for (const { name, path, heading } of sectionHeadings) {
  test(`the ${name} route ${path} is headed '${heading}'`, async ({ page, saveScreenshot }) => {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
    await saveScreenshot(`section-${name}`);
  });
}

test('on a phone the sidebar is a drawer behind the menu button', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/home');
  const sidebarLink = page
    .getByRole('navigation', { name: 'Навигация' })
    .getByRole('link', { name: 'Обучение' });
  await expect(sidebarLink).toBeHidden();

  await page.getByRole('button', { name: 'Открыть меню' }).click();
  await expect(sidebarLink).toBeVisible();
  await saveScreenshot('phone-drawer');
  await sidebarLink.click();

  await expect(page).toHaveURL(/\/courses$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Раздел 3. Обучение и развитие');
});
