import { admin } from '../support/accounts';
import { restAs } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

test('an admin grants a right and finds it, old → new, in «Журнал действий» and on the user’s page', async ({
  page,
  saveScreenshot,
}) => {
  const suffix = Date.now().toString(36);
  const login = `audit-${suffix}`;

  // A person of their own (over REST), so no other test's rights change.
  const signedIn = await page.request.post('/api/auth/login', {
    data: { login: admin.login, password: admin.password },
  });
  const token = ((await signedIn.json()) as { data: { accessToken: string } }).data.accessToken;
  const created = await page.request.post('/api/user/create-user', {
    headers: { Authorization: `Bearer ${token}` },
    data: {
      name: 'Вера',
      surname: 'Журавлёва',
      lastName: 'Игоревна',
      login,
      password: 'zhuravleva-password',
      email: `${login}@hospital.example`,
      rights: [],
    },
  });
  expect(created.ok()).toBe(true);
  const userId = ((await created.json()) as { data: { id: number } }).data.id;

  // The admin grants her EquipmentEditing on her page, whose history then shows it.
  await signIn(page, admin);
  await page.goto(`/admin/users-management/admin-users/${userId}`);
  await page.getByRole('checkbox', { name: 'Редактирование оборудования' }).check();
  await page.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Сохранение пользователя прошло успешно!')).toBeVisible();
  const history = page.getByRole('region', { name: 'История изменений' });
  await expect(history.getByText('Права: — → Редактирование оборудования')).toBeVisible();
  await expect(history.getByText('Пароль: изменён (значение скрыто)')).toBeVisible();

  // «Журнал действий»: the admin menu's tab, filtered by action and period.
  await page.getByRole('tab', { name: 'Журнал действий' }).click();
  await expect(page).toHaveURL(/\/admin\/audit$/);
  await expect(page.getByRole('heading', { name: 'Журнал действий' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Действие' }).click();
  await page.getByRole('option', { name: 'Выдача прав' }).click();
  const today = new Date();
  const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  await page.getByLabel('С даты').fill(day);
  await page.getByLabel('По дату').fill(day);
  const record = page
    .getByTestId('audit-record')
    .filter({ hasText: 'Журавлёва Вера Игоревна' })
    .filter({ hasText: 'Права: — → Редактирование оборудования' });
  await expect(record).toHaveCount(1);
  await expect(record).toContainText('Системный Администратор');
  await expect(record).toContainText('Выдача прав · Сотрудник «Журавлёва Вера Игоревна»');
  await expect(page.getByTestId('audit-record').filter({ hasText: 'Вход' })).toHaveCount(0);
  await saveScreenshot('admin-audit');
});

test('an admin renames a model and a course and finds each change in the page’s own history', async ({
  page,
  request,
}) => {
  const suffix = Date.now().toString(36);
  const rest = await restAs(request, admin);
  const model = await rest.post<{ id: number }>('/api/environment-model/create', {
    name: `Монитор ${suffix}`,
    brandName: 'Philips',
    description: 'Монитор пациента',
    shortInstruction: '<p>Включить</p>',
  });
  const course = await rest.post<{ id: number }>('/api/course/create-course-with-user-and-articles', {
    title: `Курс ${suffix}`,
    description: 'Описание курса',
    dateDeadline: '2099-01-31',
    userIds: [],
    articleIds: [],
  });
  const history = page.getByRole('region', { name: 'История изменений' });

  await signIn(page, admin);
  await page.goto(`/admin/equipments/equipment-models/${model.id}`);
  await expect(history.getByText(`Название: — → Монитор ${suffix}`)).toBeVisible();
  await page.getByRole('textbox', { name: /^Название/ }).fill(`Монитор ${suffix} (2)`);
  await page.getByRole('button', { name: 'Сохранить', exact: true }).click();
  await expect(page.getByText('Сохранение оборудования прошло успешно!')).toBeVisible();
  await expect(history.getByText(`Название: Монитор ${suffix} → Монитор ${suffix} (2)`)).toBeVisible();

  await page.goto(`/admin/education/courses/${course.id}`);
  await page.getByRole('textbox', { name: /^Название/ }).fill(`Курс ${suffix} (2)`);
  await page.getByRole('button', { name: 'Сохранить', exact: true }).click();
  await expect(page.getByText('Сохранение курса прошло успешно!')).toBeVisible();
  await expect(history.getByText(`Название: Курс ${suffix} → Курс ${suffix} (2)`)).toBeVisible();
});

// Issue 37 point 17: links read by name («Статус: Работает → Уволен»), not by id («1 → 4»).
for (const [name, viewport] of Object.entries({
  desktop: { width: 1366, height: 900 },
  phone: { width: 360, height: 740 },
})) {
  test(`${name}: a person’s history and the journal name the status and the departments`, async ({
    page,
    request,
  }) => {
    const suffix = `${name}-${Date.now().toString(36)}`;
    const rest = await restAs(request, admin);
    const department = await rest.post<{ id: number }>('/api/department/create', {
      title: `Отделение ${suffix}`,
      users: [],
    });
    const person = {
      name: 'Пётр',
      surname: 'Гордеев',
      lastName: 'Ильич',
      login: `gordeev-${suffix}`,
      password: 'gordeev-password',
      email: `gordeev-${suffix}@hospital.example`,
      departments: [department.id],
      positions: [],
      rights: [],
    };
    const user = await rest.post<{ id: number }>('/api/user/create-user', { ...person, status: { id: 1 } });
    await rest.post('/api/user/update-user', { ...person, id: user.id, password: '', status: { id: 4 } });

    await page.setViewportSize(viewport);
    await signIn(page, admin);
    await page.goto(`/admin/users-management/admin-users/${user.id}`);
    const history = page.getByRole('region', { name: 'История изменений' });
    await expect(history.getByText('Статус: Работает → Уволен')).toBeVisible();
    await expect(history.getByText(`Отделения: — → Отделение ${suffix}`)).toBeVisible();
    await expect(history.getByText(/Статус: \d|Отделения: — → \d/)).toHaveCount(0);

    await page.goto(`/admin/audit?entity=user&entityId=${user.id}`);
    const records = page.getByTestId('audit-record');
    await expect(records.filter({ hasText: 'Статус: Работает → Уволен' })).toHaveCount(1);
    await expect(records.filter({ hasText: `Отделения: — → Отделение ${suffix}` })).toHaveCount(1);
  });
}
