// What a person reads on the rich-text editors' toolbar (an article's content, an equipment
// instruction): loaded with Quill only, not with every first load.

export const editorStrings = {
  toolbar: {
    header: 'Стиль текста',
    headerLevels: { '1': 'Заголовок 1', '2': 'Заголовок 2', '3': 'Заголовок 3', '': 'Обычный текст' },
    bold: 'Полужирный',
    align: { '': 'По левому краю', center: 'По центру', right: 'По правому краю' },
    image: 'Вставить изображение',
    video: 'Вставить видео',
    clean: 'Очистить форматирование',
  },
} as const;
