import { describe, expect, it } from 'vitest';

import { checkRequired, requiredMessages, startValues, type FormField } from './fields-form';

const fields: FormField[] = [
  { name: 'title', label: 'Название', required: 'Введите название' },
  { name: 'description', label: 'Описание' },
  { name: 'url', label: 'Ссылка', required: 'Укажите ссылку' },
];

describe('checkRequired', () => {
  it('names the required fields left blank or only spaces, never the optional ones', () => {
    const { missing } = checkRequired(fields, { title: '  ', description: '', url: 'https://a/' });
    expect([...missing]).toEqual(['title']);
    expect([...checkRequired(fields, startValues(fields)).missing]).toEqual(['title', 'url']);
  });

  it('trims what is sent and fills a field nobody touched with an empty value', () => {
    const { values, missing } = checkRequired(fields, { title: ' Приказ ', url: ' https://a/b.pdf\n' });
    expect(missing.size).toBe(0);
    expect(values).toEqual({ title: 'Приказ', description: '', url: 'https://a/b.pdf' });
  });
});

describe('requiredMessages', () => {
  it('gives each blank required field its own message, and none to the rest', () => {
    expect(requiredMessages(fields, { title: ' ', description: '', url: '' })).toEqual({
      title: 'Введите название',
      url: 'Укажите ссылку',
    });
    expect(requiredMessages(fields, { title: 'Приказ', description: '', url: 'https://a/' })).toEqual({});
  });
});

describe('startValues', () => {
  it('starts from what is given and leaves the rest empty, ignoring names of no field', () => {
    expect(startValues(fields, { title: 'Приказ', other: 'x' })).toEqual({
      title: 'Приказ',
      description: '',
      url: '',
    });
  });
});
