import { describe, expect, it } from 'vitest';

import type { ServiceAccount } from '../api/service-account-queries';
import { formVersion, lastUse, ownerName, scopeTitle } from './service-accounts';

const account: ServiceAccount = {
  id: 1,
  clientId: 'svc-1',
  name: 'Кадровая система',
  description: '',
  ownerId: 7,
  ownerName: 'Смирнова Ольга Викторовна',
  scopes: ['staff.read'],
  active: true,
  hasPublicKey: false,
  secrets: [{ id: 11, createdAt: '2026-11-20T08:00:00Z', lastUsedAt: null }],
  lastUsedAt: null,
  lastUsedFrom: null,
  createdAt: '2026-11-20T08:00:00Z',
};

describe('service account texts', () => {
  it('names a scope in Russian with its string, and an unknown one as it is', () => {
    expect(scopeTitle('equipment.write')).toBe('Оборудование: изменение реестра (equipment.write)');
    expect(scopeTitle('pharmacy.read')).toBe('pharmacy.read');
    expect(scopeTitle('toString')).toBe('toString');
  });

  it('says when and from where the system was last used, or that it never was', () => {
    expect(lastUse(account)).toBe('ещё не использовалась');
    const at = new Date(2026, 10, 25, 9, 30).toISOString();
    expect(lastUse({ lastUsedAt: at, lastUsedFrom: '10.20.0.15' })).toBe(
      '25.11.2026, 09:30, с адреса 10.20.0.15',
    );
    expect(lastUse({ lastUsedAt: at, lastUsedFrom: '' })).toBe('25.11.2026, 09:30');
  });

  it('names the owner, or their number when the server knew no name', () => {
    expect(ownerName(account)).toBe('Смирнова Ольга Викторовна');
    expect(ownerName({ ownerId: 9, ownerName: '' })).toBe('Сотрудник №9');
  });

  it("changes the form's version with what the form edits, not with secrets or state", () => {
    const version = formVersion(account);
    expect(formVersion({ ...account, active: false, secrets: [], hasPublicKey: true })).toBe(version);
    expect(formVersion({ ...account, lastUsedAt: '2026-11-25T09:30:00Z' })).toBe(version);
    expect(formVersion({ ...account, name: 'Кадры' })).not.toBe(version);
    expect(formVersion({ ...account, scopes: ['staff.read', 'staff.write'] })).not.toBe(version);
    expect(formVersion({ ...account, ownerId: 8 })).not.toBe(version);
    expect(formVersion({ ...account, description: 'МИС' })).not.toBe(version);
  });
});
