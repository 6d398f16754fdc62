// Issue 37 point 17: a blocked (dismissed) person is not offered as a course's assignee.
import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

for (const [name, viewport] of Object.entries({ desktop, phone })) {
  test(`${name}: a new course offers the staff to assign but not the dismissed Орлов`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signIn(page, admin);
    await page.goto('/admin/education/courses');
    await page.getByRole('button', { name: 'Создать курс' }).click();
    const dialog = page.getByRole('dialog', { name: 'Новый курс' });
    const picker = dialog.getByRole('combobox', { name: 'Назначенные сотрудники' });
    await picker.click();
    const list = page.getByRole('listbox');
    await expect(list.getByRole('option', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();
    // Орлов is a member of the surgery, as the users list shows him blocked.
    await expect(list.getByRole('option', { name: /Орлов/ })).toHaveCount(0);
    await picker.fill('Орлов');
    await expect(page.getByRole('option', { name: /Орлов/ })).toHaveCount(0);
  });
}
