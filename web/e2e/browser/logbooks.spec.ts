import { engineer } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// The demo ICU's monitor (services/wiki/src/demo.rs), which the demo engineer may edit.
const model = '/departments/environments/1/environment/1';

test('an engineer creates a journal and writes in it; empty fields are marked, not sent', async ({
  page,
}) => {
  await signIn(page, engineer);
  await page.goto(`${model}/journal`);
  const name = `Журнал дезинфекции ${Date.now().toString(36)}`;

  await page.getByRole('button', { name: 'Новый журнал' }).click();
  const create = page.getByRole('dialog', { name: 'Новый журнал' });
  await expect(create.getByText('Например: Журнал дезинфекции')).toBeVisible();
  await create.getByRole('button', { name: 'Создать' }).click();
  await expect(create.getByText('Введите название журнала')).toBeVisible();
  await expect(create.getByLabel(/Название журнала/)).toBeFocused();
  await create.getByLabel(/Название журнала/).fill(name);
  await expect(create.getByText('Введите название журнала')).toBeHidden();
  await create.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Журнал создан').last()).toBeVisible();
  await expect(create).toBeHidden({ timeout: 10_000 });
  await expect(page.getByRole('button', { name, pressed: true })).toBeVisible();

  await page.getByRole('button', { name: 'Добавить запись' }).click();
  const entry = page.getByRole('dialog', { name: `Запись: ${name}` });
  await entry.getByRole('button', { name: 'Сохранить' }).click();
  await expect(entry.getByText('Заполните поле')).toBeVisible();
  const text = 'Обработка поверхностей, 2 раза';
  await entry.getByRole('textbox', { name: /Запись/ }).fill(text);
  await entry.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Запись добавлена').last()).toBeVisible();
  await expect(entry).toBeHidden({ timeout: 10_000 });
  await expect(page.getByRole('list', { name }).getByText(text)).toBeVisible();
});

test('an engineer adds a maintenance entry; the required fields are marked while empty', async ({ page }) => {
  await signIn(page, engineer);
  await page.goto(`${model}/maintenance-logbook`);
  const description = `Замена датчика SpO2 ${Date.now().toString(36)}`;

  await page.getByRole('button', { name: 'Добавить запись' }).click();
  const dialog = page.getByRole('dialog', { name: /^Обслуживание: инв. № / });
  await dialog.getByRole('button', { name: 'Сохранить' }).click();
  await expect(dialog.getByText('Заполните поле')).toHaveCount(2);
  const performer = dialog.getByRole('textbox', { name: /Кто выполнил/ });
  await expect(performer).toBeFocused();
  await performer.fill('Сервисный инженер');
  await expect(dialog.getByText('Заполните поле')).toHaveCount(1);
  await performer.fill('');
  await expect(dialog.getByText('Заполните поле')).toHaveCount(2);
  await performer.fill('Сервисный инженер');
  await dialog.getByRole('textbox', { name: /Выполненные работы/ }).fill(description);
  await dialog.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Запись добавлена').last()).toBeVisible();
  await expect(dialog).toBeHidden({ timeout: 10_000 });
  await expect(page.getByText(description)).toBeVisible();
});
