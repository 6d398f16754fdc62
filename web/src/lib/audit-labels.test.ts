import { describe, expect, it } from 'vitest';

import type { AuditChange, AuditRecord } from './audit';
import { actorLabel, changeLabel, deedLabel } from './audit-labels';

const rights: AuditChange = { field: 'rights', old: [], new: ['UserManagement'] };

const grant: AuditRecord = {
  service: 'auth',
  id: 7,
  time: '2026-11-18T11:06:40Z',
  actor: { kind: 'person', userId: 1, name: 'Системный Администратор', clientId: '', login: '' },
  address: '192.0.2.10',
  requestId: 'r-1',
  entity: 'user',
  entityId: 5,
  entityName: 'Иванова Анна',
  action: 'grant',
  changes: [rights],
  reason: '',
};

describe('an audit record as a person reads it', () => {
  it('names who gave which right to whom, old → new', () => {
    expect(actorLabel(grant)).toBe('Системный Администратор');
    expect(deedLabel(grant)).toBe('Выдача прав · Сотрудник «Иванова Анна»');
    expect(changeLabel(rights)).toBe('Права: — → Управление пользователями');
  });

  it('shows a secret only as changed', () => {
    expect(changeLabel({ field: 'password', old: '***', new: '***' })).toBe(
      'Пароль: изменён (значение скрыто)',
    );
  });

  it('names a refused sign-in by the login tried and why', () => {
    const refused: AuditRecord = {
      ...grant,
      actor: { kind: 'anonymous', clientId: '', login: 'ivanova' },
      action: 'sign-in-refused',
      entityName: null,
      entityId: null,
      reason: 'wrong-password',
      changes: [],
    };
    expect(actorLabel(refused)).toBe('Не вошедший (логин «ivanova»)');
    expect(deedLabel(refused)).toBe('Отказ во входе (неверный пароль) · Сотрудник');
  });
});
