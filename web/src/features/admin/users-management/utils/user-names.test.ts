import { describe, expect, it } from 'vitest';

import { fullName } from '@/lib/person-name';

import { groupUsersByLetter, matchesUserSearch } from './user-names';

const person = (surname: string, name: string, lastName = '') => ({ surname, name, lastName });

describe('user names', () => {
  it('groups users by the uppercase first letter of the listed name, in Russian order', () => {
    const users = [
      person('Волков', 'Дмитрий', 'Олегович'),
      person('смирнова', 'Ольга'),
      person('Кузнецов', 'Андрей', 'Игоревич'),
      person('Семёнов', 'Илья'),
      person('', 'Администратор'),
      person('Ёлкина', 'Анна'),
      person('Егоров', 'Пётр'),
    ];

    const groups = groupUsersByLetter(users).map(({ letter, items }) => [letter, items.map(fullName)]);

    expect(groups).toEqual([
      ['А', ['Администратор']],
      ['В', ['Волков Дмитрий Олегович']],
      ['Е', ['Егоров Пётр']],
      ['Ё', ['Ёлкина Анна']],
      ['К', ['Кузнецов Андрей Игоревич']],
      ['С', ['Семёнов Илья', 'смирнова Ольга']],
    ]);
  });

  it('puts a user without any name under #', () => {
    expect(groupUsersByLetter([person('', '')])).toEqual([{ letter: '#', items: [person('', '')] }]);
  });
});

describe('user search', () => {
  const nurse = { ...person('Семёнова', 'Ольга', 'Викторовна'), login: 'nurse' };

  it('matches the beginnings of name words and the login, whatever the case and ё/е', () => {
    for (const search of ['', '  ', 'сем', 'СЕМЕН', 'ольга семён', 'викт', 'nur', ' Ольга  Семенова ']) {
      expect(matchesUserSearch(nurse, search), search).toBe(true);
    }
  });

  it('refuses a word that starts no part of the name or login', () => {
    for (const search of ['ёнова', 'ольга петрова', 'urse', 'doctor']) {
      expect(matchesUserSearch(nurse, search), search).toBe(false);
    }
  });
});
