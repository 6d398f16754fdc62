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

// Issue 37 point 17: the bar's labels fit a small phone, and the page's end scrolls clear of it.
for (const width of [360, 320]) {
  test(`at ${width} px the bottom bar's labels fit whole and no text stays under the bar`, async ({
    page,
    saveScreenshot,
  }) => {
    await page.setViewportSize({ width, height: 740 });
    await signIn(page, nurse);
    const personal = page.getByRole('navigation', { name: 'Личный раздел' });
    await expect(personal).toBeInViewport();

    const labels = await personal.locator('.MuiBottomNavigationAction-label').evaluateAll((elements) =>
      elements.map((label) => {
        const box = label.getBoundingClientRect();
        const bar = label.closest('nav')?.getBoundingClientRect();
        const text = label.firstChild;
        const range = document.createRange();
        if (text) range.selectNodeContents(text);
        // Each word on one line: a word's rectangles all share one top.
        const words = label.textContent.split(' ');
        let offset = 0;
        const broken = words.filter((word) => {
          if (!text) return false;
          range.setStart(text, offset);
          range.setEnd(text, offset + word.length);
          offset += word.length + 1;
          return new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top))).size > 1;
        });
        return {
          label: label.textContent,
          cut: label.scrollWidth > label.clientWidth || label.scrollHeight > label.clientHeight + 1,
          outside:
            !bar ||
            box.top < bar.top ||
            box.bottom > bar.bottom ||
            box.left < bar.left ||
            box.right > bar.right,
          broken,
        };
      }),
    );
    expect(labels.filter((label) => label.cut || label.outside || label.broken.length > 0)).toEqual([]);

    // The bar lies on the bottom edge: nothing of the page shows below or around it.
    const bar = await personal.boundingBox();
    expect(bar && Math.round(bar.y + bar.height)).toBe(740);
    expect(bar?.x).toBe(0);
    expect(bar?.width).toBe(width);

    // At the end of the page the last news item's button is above the bar, not under it.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const last = page.getByRole('button', { name: 'Подробнее' }).last();
    const lastBox = await last.boundingBox();
    const barNow = await personal.boundingBox();
    expect(lastBox && barNow && lastBox.y + lastBox.height).toBeLessThanOrEqual(barNow?.y ?? 0);
    await saveScreenshot(`home-bottom-bar-${width}`, { fullPage: false });
  });
}
