import { readFile } from 'node:fs/promises';

import type { Locator, Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const suffix = () => Date.now().toString(36);

/** Picks `option` in the MUI autocomplete labelled `label`. */
async function choose(page: Page, label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('combobox', { name: label }).fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
}

/** Picks `option` in the MUI select labelled `label`. */
async function select(scope: Page | Locator, page: Page, label: string, option: string) {
  await scope.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/** Fills question `index` (1-based) with two answers, the first one correct. */
async function fillQuestion(dialog: Locator, index: number, title: string) {
  const question = dialog.getByRole('group', { name: `Вопрос ${index}` });
  await question.getByRole('textbox', { name: `Вопрос ${index}` }).fill(title);
  await question.getByRole('textbox', { name: 'Ответ 1' }).fill('Верно');
  await question.getByRole('textbox', { name: 'Ответ 2' }).fill('Неверно');
  await question.getByRole('radio', { name: 'Правильный ответ: Ответ 1' }).check();
}

test('an admin creating a test sees every rule of spec §5 with its message, then saves it', async ({
  page,
  saveScreenshot,
}) => {
  const title = `Асептика и антисептика ${suffix()}`;
  await signIn(page, admin);
  await page.goto('/admin/education/tests');
  await page.getByRole('button', { name: 'Создать тест' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новый тест' });

  // Defaults 10 / 10 / 3; digits only; 0 is refused at once.
  const points = dialog.getByRole('textbox', { name: 'Баллов для прохождения' });
  const drawn = dialog.getByRole('textbox', { name: 'Вопросов после перемешивания' });
  const tries = dialog.getByRole('textbox', { name: 'Количество попыток' });
  await expect(points).toHaveValue('10');
  await expect(drawn).toHaveValue('10');
  await expect(tries).toHaveValue('3');
  await tries.fill('0');
  await expect(dialog.getByText('Значение должно быть больше 0')).toBeVisible();
  await tries.fill('');
  await tries.pressSequentially('x2-');
  await expect(tries).toHaveValue('2');
  await expect(dialog.getByText('Значение должно быть больше 0')).toBeHidden();

  // Saving an empty test: every missing text, the missing correct answer, and the two
  // checks against the number of questions (1 question, 10 points, 10 drawn).
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(dialog.getByText('Введите название теста')).toBeVisible();
  await expect(dialog.getByText('Введите описание теста')).toBeVisible();
  await expect(dialog.getByText('Введите текст вопроса')).toBeVisible();
  await expect(dialog.getByText('Введите текст ответа')).toHaveCount(2);
  await expect(dialog.getByText('Отметьте правильный ответ')).toBeVisible();
  const alert = dialog.getByRole('alert');
  await expect(alert).toContainText('Необходимое количество очков превышает количество вопросов в тесте');
  await expect(alert).toContainText(
    'Количество вопросов после перемешивания не может превышать количество вопросов в тесте',
  );
  await saveScreenshot('admin-test-rules');

  // A second question, then only the points exceed it; a question with one answer is refused.
  await dialog.getByLabel('Название').first().fill(title);
  await dialog.getByLabel('Описание').first().fill('Обработка операционного поля');
  await fillQuestion(dialog, 1, 'Чем обрабатывают операционное поле?');
  await dialog.getByRole('button', { name: 'Добавить вопрос' }).click();
  await fillQuestion(dialog, 2, 'Сколько раз обрабатывают поле?');
  await drawn.fill('2');
  await expect(alert).toContainText('Необходимое количество очков превышает количество вопросов в тесте');
  await expect(alert).not.toContainText('Количество вопросов после перемешивания');
  await points.fill('2');
  await dialog
    .getByRole('group', { name: 'Вопрос 2' })
    .getByRole('button', { name: 'Удалить ответ 2' })
    .click();
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(dialog.getByText('У каждого вопроса должно быть не меньше двух ответов')).toBeVisible();
  await dialog
    .getByRole('group', { name: 'Вопрос 2' })
    .getByRole('button', { name: 'Добавить ответ' })
    .click();
  await dialog
    .getByRole('group', { name: 'Вопрос 2' })
    .getByRole('textbox', { name: 'Ответ 2' })
    .fill('Дважды');
  await expect(alert).toBeHidden();

  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Тест успешно сохранен')).toBeVisible();
  await expect(dialog).toBeHidden({ timeout: 5000 });
  // Grouped under its first letter.
  const group = page.getByRole('list', { name: 'А', exact: true });
  await expect(group.getByRole('link', { name: new RegExp(title) })).toBeVisible();
  await saveScreenshot('admin-tests');
});

test('an admin builds a course from a new test and article, assigns a learner and sees them in the compliance view', async ({
  page,
  saveScreenshot,
}) => {
  const id = suffix();
  const testTitle = `Пролежни ${id}`;
  const articleTitle = `Профилактика пролежней ${id}`;
  const courseTitle = `Уход за лежачими пациентами ${id}`;
  await signIn(page, admin);

  await page.goto('/admin/education/tests');
  await page.getByRole('button', { name: 'Создать тест' }).click();
  const testDialog = page.getByRole('dialog', { name: 'Новый тест' });
  await testDialog.getByLabel('Название').first().fill(testTitle);
  await testDialog.getByLabel('Описание').first().fill('Шкала Брейден');
  await fillQuestion(testDialog, 1, 'Как часто переворачивают пациента?');
  await testDialog.getByRole('textbox', { name: 'Баллов для прохождения' }).fill('1');
  await testDialog.getByRole('textbox', { name: 'Вопросов после перемешивания' }).fill('1');
  await testDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Тест успешно сохранен')).toBeVisible();
  await expect(testDialog).toBeHidden({ timeout: 5000 });

  await page.getByRole('tab', { name: 'Статьи' }).click();
  await page.getByRole('button', { name: 'Создать статью' }).click();
  const articleDialog = page.getByRole('dialog', { name: 'Новая статья' });
  await articleDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(articleDialog.getByText('Введите название статьи')).toBeVisible();
  await expect(articleDialog.getByText('Укажите срок прохождения статьи')).toBeVisible();
  await articleDialog.getByLabel('Название').fill(articleTitle);
  await articleDialog.getByLabel('Описание').fill('Оценка риска и уход за кожей');
  await articleDialog.getByLabel('Срок прохождения').fill('2099-01-31');
  await select(articleDialog, page, 'Тест по статье', testTitle);
  await articleDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Статья успешно сохранена')).toBeVisible();
  await expect(articleDialog).toBeHidden({ timeout: 5000 });

  // The article's content in the Quill editor, loaded only on this page.
  await page.getByRole('link', { name: new RegExp(articleTitle) }).click();
  const editor = page.getByRole('textbox', { name: 'Содержание статьи' });
  await editor.click();
  await page.keyboard.type('Переворачивайте пациента каждые два часа.');
  await page.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Обновление информации по статье прошло успешно')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Содержание статьи' })).toContainText('каждые два часа');
  await saveScreenshot('admin-article');

  await page.getByRole('tab', { name: 'Курсы' }).click();
  await page.getByRole('button', { name: 'Создать курс' }).click();
  const courseDialog = page.getByRole('dialog', { name: 'Новый курс' });
  await courseDialog.getByLabel('Название').fill(courseTitle);
  await courseDialog.getByLabel('Описание').fill('Для палатных медсестёр');
  await courseDialog.getByLabel('Срок прохождения').fill('2099-01-31');
  await choose(page, 'Назначенные сотрудники', 'Смирнова Ольга Викторовна');
  await choose(page, 'Статьи курса', articleTitle);
  await courseDialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Курс успешно сохранен')).toBeVisible();
  await expect(courseDialog).toBeHidden({ timeout: 5000 });

  await page.getByRole('link', { name: new RegExp(courseTitle) }).click();
  await expect(page.getByRole('navigation', { name: 'Навигационная цепочка' })).toContainText(courseTitle);
  const compliance = page.getByRole('table', { name: 'Выполнение курса' });
  await expect(
    compliance.getByRole('row', { name: /Смирнова Ольга Викторовна\s*0 из 1\s*В процессе/ }),
  ).toBeVisible();
  await saveScreenshot('admin-course');
});

test('the compliance view of the demo course shows who is done and who is due within 7 days', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/education/courses');
  await page.getByRole('link', { name: /Профилактика инфекций/ }).click();
  const compliance = page.getByRole('table', { name: 'Выполнение курса' });
  await expect(compliance.getByRole('row', { name: /Смирнова Ольга Викторовна.*Выполнен/ })).toBeVisible();
  await expect(
    compliance.getByRole('row', { name: /Кузнецов Андрей Игоревич.*Срок в ближайшие 7 дней/ }),
  ).toBeVisible();
  await saveScreenshot('admin-compliance');

  // The question analysis of the demo test, on the test's page.
  await page.goto('/admin/education/tests');
  await page.getByRole('link', { name: /^Гигиена рук/ }).click();
  const analysis = page.getByRole('table', { name: 'Анализ вопросов' });
  await expect(analysis.getByRole('row', { name: /Сколько моментов гигиены рук/ })).toBeVisible();
});

test('the statistics page filters on the server and downloads the CSV as filtered', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/statistics');
  const found = page.getByRole('status').filter({ hasText: 'Найдено результатов' });
  await expect(found).toHaveText(/Найдено результатов: [1-9]/);
  await expect(page.getByRole('cell', { name: /^\d{2}-\d{2}-\d{4}: \d{2}-\d{2}$/ }).first()).toBeVisible();
  await saveScreenshot('admin-statistics');

  // The demo nurse passed hand hygiene on her second try: one section, her two attempts.
  await select(page, page, 'Тест', 'Гигиена рук');
  await choose(page, 'Сотрудник', 'Смирнова Ольга Викторовна');
  const section = page.getByRole('region', { name: 'Гигиена рук' });
  await expect(section).toBeVisible();
  const attempts = section.getByRole('table', { name: 'Гигиена рук: Смирнова Ольга Викторовна' });
  await expect(attempts.getByRole('row')).toHaveCount(3);
  await expect(attempts.getByText('Да', { exact: true })).toHaveCount(1);
  await expect(attempts.getByText('Нет', { exact: true })).toHaveCount(1);
  await expect(found).toHaveText('Найдено результатов: 2');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Скачать CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^Статистика тестов \d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile(await file.path(), 'utf8');
  expect(csv.charCodeAt(0)).toBe(0xfeff);
  const rows = csv.slice(1).trimEnd().split('\r\n');
  expect(rows).toHaveLength(3);
  expect(rows.slice(1).every((row) => row.startsWith('Гигиена рук;Смирнова Ольга Викторовна;'))).toBe(true);

  // A period with no results.
  await page.getByLabel('С даты').fill('2099-01-01');
  await expect(found).toHaveText('Найдено результатов: 0');
  await expect(page.getByText('Результатов не найдено.')).toBeVisible();
  await page.getByRole('button', { name: 'Сбросить' }).click();
  await expect(found).toHaveText(/Найдено результатов: [1-9]/);
});
