import { admin, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

test('an admin sees the admin panel link and tile', async ({ page, saveScreenshot }) => {
  await signIn(page, admin);

  await expect(
    page.getByRole('navigation', { name: 'Навигация' }).getByRole('link', { name: 'Админ-панель' }),
  ).toBeVisible();
  await expect(page.getByRole('link', { name: /Панель администратора/ })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Новости' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Подробнее' })).toHaveCount(5);
  await saveScreenshot('home-admin');

  await page.getByRole('link', { name: /Панель администратора/ }).click();
  await expect(page).toHaveURL(/\/admin$/);
});

test('a learner sees neither the admin link nor the tile, and /admin is refused', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, nurse);

  await expect(page.getByRole('link', { name: /Обучение/ }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Админ-панель' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: /Панель администратора/ })).toHaveCount(0);
  await saveScreenshot('home-learner');

  await page.goto('/admin');
  await expect(page).toHaveURL(/\/not-allowed$/);
});

test('external tiles open a new tab', async ({ page }) => {
  await signIn(page, nurse);
  const tile = page.getByRole('link', { name: /Клинические рекомендации/ });
  await expect(tile).toHaveAttribute('target', '_blank');
  await expect(tile).toHaveAttribute('rel', /noopener/);
});

test('on a phone, home keeps its personal navigation in view', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, nurse);
  const personal = page.getByRole('navigation', { name: 'Личный раздел' });
  await expect(personal).toBeInViewport();
  await saveScreenshot('home-learner-phone', { fullPage: false });

  await personal.getByRole('link', { name: 'Мои тесты' }).click();
  await expect(page).toHaveURL(/\/my-tests$/);
  // The demo nurse's courses give her tests to take.
  await expect(page.getByRole('heading', { name: 'Мои тесты' })).toBeVisible();
  await expect(
    page
      .getByRole('article')
      .getByText(/Осталось попыток: \d+ из \d+/)
      .first(),
  ).toBeVisible();
});

test('the personal cabinet shows the profile from the server', async ({ page, saveScreenshot }) => {
  await signIn(page, nurse);
  await page.getByRole('link', { name: 'Личный кабинет' }).click();

  await expect(page.getByRole('heading', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();
  await expect(page.getByText('Медицинская сестра палатная')).toBeVisible();
  await expect(page.getByText('Хирургическое отделение')).toBeVisible();
  await expect(page.getByText('Нет прав администрирования')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Навигационная цепочка' })).toContainText(
    'Личный кабинет',
  );
  await saveScreenshot('cabinet');

  await page.setViewportSize({ width: 390, height: 844 });
  await saveScreenshot('cabinet-phone');
});
