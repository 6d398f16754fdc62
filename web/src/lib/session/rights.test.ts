import { describe, expect, it } from 'vitest';

import { signInAs } from '@/testing/session';

import { hasRight, isAdmin, Right, rightLabel } from './rights';

describe('rights', () => {
  it('hasRight is true for a right the token carries and false for one it does not', () => {
    signInAs({ rights: ['EducationManagement'] });
    expect(hasRight(Right.EducationManagement)).toBe(true);
    expect(hasRight(Right.UserManagement)).toBe(false);
  });

  it('hasRight is null when nobody is signed in', () => {
    expect(hasRight(Right.UserManagement)).toBeNull();
  });

  it.each([Right.UserManagement, Right.EducationManagement, Right.EquipmentEditing])(
    '%s alone is an admin-type right',
    (right) => {
      signInAs({ rights: [right] });
      expect(isAdmin()).toBe(true);
    },
  );

  it('a learner without rights, or nobody, is not an admin', () => {
    expect(isAdmin()).toBe(false);
    signInAs({ rights: [] });
    expect(isAdmin()).toBe(false);
  });

  it('an unknown right string grants nothing', () => {
    signInAs({ rights: ['Superuser'] });
    expect(isAdmin()).toBe(false);
  });

  it('names rights in Russian, and an unknown one as it is', () => {
    expect(rightLabel('UserManagement')).toBe('Управление пользователями');
    expect(rightLabel('EducationManagement')).toBe('Управление обучением');
    expect(rightLabel('EquipmentEditing')).toBe('Редактирование оборудования');
    expect(rightLabel('Superuser')).toBe('Superuser');
  });
});
