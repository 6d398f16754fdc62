import { describe, expect, it } from 'vitest';

import type { AuditChange, AuditRecord } from './audit';
import { actorLabel, changeLabel, deedLabel, fieldLabel } from './audit-labels';
import auditLabels from './audit-labels.json';
import { strings } from './strings';

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
    expect(changeLabel('user', rights)).toBe('Права: — → Управление пользователями');
  });

  it('says who vouches for an employee number in words', () => {
    const linked: AuditChange = { field: 'staffLink', old: null, new: 'admin' };
    expect(changeLabel('user', linked)).toBe('Связь с кадровой системой: — → связан администратором');
  });

  it('reads a rich text by its length, not its hash', () => {
    const content: AuditChange = {
      field: 'content',
      old: { chars: 741, sha256: 'aa11' },
      new: { chars: 802, sha256: 'bb22' },
    };
    expect(changeLabel('article', content)).toBe('Содержание: текст (знаков: 741) → текст (знаков: 802)');
  });

  it('shows a secret only as changed', () => {
    expect(changeLabel('user', { field: 'password', old: '***', new: '***' })).toBe(
      'Пароль: изменён (значение скрыто)',
    );
  });

  it('reads a name by what it names: a person’s given name, a thing’s title', () => {
    const renamed = (entity: string) => changeLabel(entity, { field: 'name', old: 'А', new: 'Б' });
    expect(renamed('user')).toBe('Имя: А → Б');
    for (const thing of ['environment-model', 'country', 'manufacturer', 'environment-type', 'journal']) {
      expect(renamed(thing)).toBe('Название: А → Б');
    }
    expect(changeLabel('course', { field: 'title', old: 'А', new: 'Б' })).toBe('Название: А → Б');
    expect(changeLabel('department', { field: 'title', old: null, new: 'Кардиология' })).toBe(
      'Название: — → Кардиология',
    );
  });

  it('labels a field by its kind where it means something of its own, else alike', () => {
    expect(fieldLabel('maintenance-entry', 'kind')).toBe('Вид работ');
    expect(fieldLabel('attempt', 'questions')).toBe('Выпавшие вопросы');
    expect(fieldLabel('test', 'questions')).toBe('Вопросы');
    expect(fieldLabel('user', 'surname')).toBe('Фамилия');
    expect(fieldLabel('course', 'somethingNew')).toBe('somethingNew');
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

  it('reads linked ids by the names it is given, an unknown one by its number', () => {
    const names: Record<string, Record<string, string>> = {
      status: { '1': 'Работает', '4': 'Уволен' },
      department: { '1': 'Кардиология' },
      person: { '2': 'Смирнова Ольга Викторовна' },
    };
    const nameOf = (kind: string, id: bigint) => names[kind]?.[String(id)];
    expect(changeLabel('user', { field: 'statusId', old: 1, new: 4 }, nameOf)).toBe(
      'Статус: Работает → Уволен',
    );
    expect(changeLabel('user', { field: 'departmentIds', old: null, new: [1] }, nameOf)).toBe(
      'Отделения: — → Кардиология',
    );
    expect(changeLabel('course', { field: 'assignees', old: [2], new: [2, 5] }, nameOf)).toBe(
      'Назначено: Смирнова Ольга Викторовна → Смирнова Ольга Викторовна, №5',
    );
    // Plain numbers stay numbers.
    expect(changeLabel('test', { field: 'numberOfTries', old: 2, new: 3 }, nameOf)).toBe(
      'Число попыток: 2 → 3',
    );
  });
});

describe('the audit vocabulary', () => {
  it('names rights as the rest of the portal does (strings.ts keeps its own for the first load)', () => {
    expect(auditLabels.rights).toEqual(strings.rights);
  });
});
