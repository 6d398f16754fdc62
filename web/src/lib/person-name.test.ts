import { describe, expect, it } from 'vitest';

import { crumbName, fullName } from './person-name';

describe('person names', () => {
  it('a full name reads surname, name, patronymic; a breadcrumb name, surname, patronymic', () => {
    const nurse = { surname: 'Смирнова', name: 'Ольга', lastName: 'Викторовна' };
    expect(fullName(nurse)).toBe('Смирнова Ольга Викторовна');
    expect(crumbName(nurse)).toBe('Ольга Смирнова Викторовна');
  });

  it('leaves out the parts a person does not have', () => {
    expect(fullName({ surname: '', name: 'Администратор', lastName: '' })).toBe('Администратор');
    expect(fullName({ surname: 'Иванов', name: 'Пётр', lastName: '' })).toBe('Иванов Пётр');
  });
});
