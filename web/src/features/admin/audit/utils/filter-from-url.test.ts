import { describe, expect, it } from 'vitest';

import { auditExportPath, auditQuery, noAuditFilter } from '@/lib/audit';

import { filterFromUrl, periodReversed } from './filter-from-url';

describe('the journal filters', () => {
  it('take what a link names and leave the rest unset', () => {
    const filter = filterFromUrl(new URLSearchParams('entity=user&entityId=5&page=3'));
    expect(filter).toEqual({ ...noAuditFilter, entity: 'user', entityId: '5' });
  });

  it('send only what is set, with the reader’s time zone', () => {
    const now = new Date();
    const offset = String(-now.getTimezoneOffset());
    const query = auditQuery({ ...noAuditFilter, action: 'grant', from: '2026-11-01' }, now);
    expect(query.toString()).toBe(`action=grant&from=2026-11-01&utcOffset=${offset}`);
    expect(auditExportPath(noAuditFilter, now)).toBe(`/api/audit/export?utcOffset=${offset}`);
  });

  it('tell a reversed period', () => {
    expect(periodReversed({ ...noAuditFilter, from: '2026-11-02', to: '2026-11-01' })).toBe(true);
    expect(periodReversed({ ...noAuditFilter, from: '2026-11-01', to: '2026-11-01' })).toBe(false);
    expect(periodReversed({ ...noAuditFilter, to: '2026-11-01' })).toBe(false);
  });
});
