import type { Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { signIn, signOut } from './session';
import { expect, test } from './test';

/** Picks `option` in the MUI multi-select labelled `label`. */
async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('combobox', { name: label }).fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
}

test('an admin creates a department and a user with two rights; that user gets only their sections', async ({
  page,
  saveScreenshot,
}) => {
  const suffix = Date.now().toString(36);
  const departmentTitle = `Отделение функциональной диагностики ${suffix}`;
  const login = `petrova-${suffix}`;
  const password = 'petrova-secret-password';

  await signIn(page, admin);
  await page.goto('/admin/users-management');
  await expect(page).toHaveURL(/\/admin\/users-management\/admin-departments$/);

  // A department, with the demo nurse in it.
  await page.getByRole('button', { name: 'Создать отделение' }).click();
  const departmentDialog = page.getByRole('dialog', { name: 'Новое отделение' });
  await departmentDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(departmentDialog.getByText('Введите название отделения')).toBeVisible();
  await expect(departmentDialog.getByLabel('Название отделения')).toBeFocused();
  await departmentDialog.getByLabel('Название отделения').fill(departmentTitle);
  await choose(page, 'Сотрудники', 'Смирнова Ольга Викторовна');
  await departmentDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Отделение было успешно создано!')).toBeVisible();
  await expect(
    page.getByRole('link', { name: new RegExp(`${departmentTitle}\\s*1 сотрудник`) }),
  ).toBeVisible();
  await expect(departmentDialog).toBeHidden({ timeout: 6000 });
  await saveScreenshot('admin-departments');

  // A user with EducationManagement and EquipmentEditing, in that department.
  await page.getByRole('tab', { name: 'Пользователи' }).click();
  await expect(page).toHaveURL(/\/admin-users$/);
  await page.getByRole('button', { name: 'Создать пользователя' }).click();
  const userDialog = page.getByRole('dialog', { name: 'Новый пользователь' });
  await userDialog.getByLabel('Фамилия').fill('Петрова');
  await userDialog.getByLabel('Имя', { exact: true }).fill('Анна');
  await userDialog.getByLabel('Отчество').fill('Сергеевна');
  await userDialog.getByLabel('Логин').fill(login);
  await userDialog.getByLabel('Пароль').fill(password);
  await userDialog.getByLabel('Email').fill(`${login}@hospital.example`);
  // Linked to the HR system's number by the administrator (issue 37).
  await userDialog.getByLabel('Табельный номер').fill(`T-${suffix}`);
  await userDialog.getByRole('combobox', { name: 'Статус' }).click();
  await page.getByRole('option', { name: 'Работает' }).click();
  await choose(page, 'Должности', 'Старшая медицинская сестра');
  await choose(page, 'Отделения', departmentTitle);
  await userDialog.getByRole('checkbox', { name: 'Управление обучением' }).check();
  await userDialog.getByRole('checkbox', { name: 'Редактирование оборудования' }).check();
  await saveScreenshot('admin-create-user');
  await userDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Пользователь успешно создан!')).toBeVisible();
  await expect(userDialog).toBeHidden();

  const listed = page.getByRole('link', { name: new RegExp(`Петрова Анна Сергеевна\\s*${login}`) });
  await expect(listed).toBeVisible();
  await expect(page.getByRole('list', { name: 'П' })).toContainText('Петрова Анна Сергеевна');
  await saveScreenshot('admin-users');

  // Its page: the list gives way, the breadcrumb names the user, the form holds what was saved.
  await listed.click();
  const trail = page.getByRole('navigation', { name: 'Навигационная цепочка' });
  await expect(trail.getByText('Анна Петрова Сергеевна')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Создать пользователя' })).toHaveCount(0);
  await expect(page.getByLabel('Логин')).toHaveValue(login);
  await expect(page.getByLabel('Табельный номер')).toHaveValue(`T-${suffix}`);
  await expect(page.getByRole('checkbox', { name: 'Управление обучением' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Управление пользователями' })).not.toBeChecked();
  await expect(page.getByText('Оставьте пустым, чтобы не менять пароль')).toBeVisible();
  await saveScreenshot('admin-user');

  await signOut(page);
  await signIn(page, { login, password });
  await page.goto('/admin');
  const sections = page.getByRole('tablist', { name: 'Разделы админ-панели' });
  await expect(sections.getByRole('tab', { name: 'Обучение' })).toBeVisible();
  await expect(sections.getByRole('tab', { name: 'Оборудование' })).toBeVisible();
  await expect(sections.getByRole('tab', { name: 'Статистика' })).toBeVisible();
  await expect(sections.getByRole('tab', { name: 'Управление пользователями' })).toHaveCount(0);
  await saveScreenshot('admin-limited');

  await page.goto('/admin/users-management');
  await expect(page).toHaveURL(/\/not-allowed$/);
});

test('a department page edits title and members', async ({ page, saveScreenshot }) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-departments');
  await page.getByRole('link', { name: /Приёмное отделение/ }).click();

  const trail = page.getByRole('navigation', { name: 'Навигационная цепочка' });
  await expect(trail.getByText('Приёмное отделение')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Создать отделение' })).toHaveCount(0);
  await choose(page, 'Сотрудники', 'Кузнецов Андрей Игоревич');
  await page.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Сохранение отделения прошло успешно!')).toBeVisible();
  await saveScreenshot('admin-department');

  await trail.getByRole('link', { name: 'Отделения' }).click();
  await expect(page.getByRole('link', { name: /Приёмное отделение/ })).toContainText('сотрудник');
});

test('the rights tab lists the rights in Russian; a right opens its placeholder', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-roles');
  await expect(
    page.getByRole('button', { name: 'Создать тест' }).or(page.getByRole('link', { name: 'Создать тест' })),
  ).toHaveCount(3);
  await saveScreenshot('admin-roles');

  await page.getByRole('link', { name: 'Управление обучением' }).click();
  await expect(page.getByRole('heading', { name: 'Управление обучением' })).toBeVisible();
});

test("creating a user with a taken login shows the server's reason and keeps the dialog", async ({
  page,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  await page.getByRole('button', { name: 'Создать пользователя' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новый пользователь' });
  await dialog.getByLabel('Фамилия').fill('Смирнова');
  await dialog.getByLabel('Имя', { exact: true }).fill('Ольга');
  await dialog.getByLabel('Логин').fill('nurse');
  await dialog.getByLabel('Пароль').fill('another-password');
  await dialog.getByRole('button', { name: 'Создать' }).click();

  await expect(
    page.getByText('Ошибка при создании пользователя: Пользователь с таким логином уже существует'),
  ).toBeVisible();
  await expect(dialog.getByLabel('Логин')).toHaveValue('nurse');
});

test('users management fits a phone', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  await expect(page.getByRole('link', { name: /Смирнова Ольга Викторовна/ })).toBeVisible();
  await saveScreenshot('admin-users-phone');
});

test('the users list narrows to the people whose name or login the admin types', async ({ page }) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  const search = page.getByRole('searchbox', { name: 'Поиск по ФИО или логину' });

  await search.fill('ольга смир');
  await expect(page.getByRole('link', { name: /Смирнова Ольга Викторовна/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Кузнецов Андрей Игоревич/ })).toHaveCount(0);

  await search.fill('doctor');
  await expect(page.getByRole('link', { name: /Кузнецов Андрей Игоревич/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Смирнова/ })).toHaveCount(0);

  await search.fill('никто-такой');
  await expect(page.getByText('Никого не найдено.')).toBeVisible();
});
