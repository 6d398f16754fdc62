import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';

import { MaintenanceEntrySchema } from '@/gen/portal/wiki/v1/wiki_pb';

import { formatDate, maintenanceState, today } from './maintenance';

const entry = (id: number, environmentId: number, date: string, nextDue: string) =>
  create(MaintenanceEntrySchema, { id: BigInt(id), environmentId: BigInt(environmentId), date, nextDue });

describe('maintenanceState', () => {
  it('is fine for a unit without logbook entries', () => {
    expect(maintenanceState([], 1n, '2026-11-23')).toEqual({ kind: 'ok' });
  });

  it('is overdue once the latest next due date has passed', () => {
    const entries = [entry(1, 1, '2026-01-10', '2026-11-01')];
    expect(maintenanceState(entries, 1n, '2026-11-23')).toEqual({ kind: 'overdue', nextDue: '2026-11-01' });
  });

  it('is due within 30 days, and fine after that', () => {
    const entries = [entry(1, 1, '2026-06-01', '2026-12-23')];
    expect(maintenanceState(entries, 1n, '2026-11-23')).toEqual({ kind: 'due', nextDue: '2026-12-23' });
    expect(maintenanceState(entries, 1n, '2026-11-22')).toEqual({ kind: 'ok' });
    expect(maintenanceState(entries, 1n, '2026-12-23')).toEqual({ kind: 'due', nextDue: '2026-12-23' });
  });

  it('reads only the latest entry: a newer one with a later date clears an overdue one', () => {
    const entries = [entry(1, 1, '2026-01-10', '2026-03-01'), entry(2, 1, '2026-11-20', '2027-05-20')];
    expect(maintenanceState(entries, 1n, '2026-11-23')).toEqual({ kind: 'ok' });
  });

  it('counts entries for the model as a whole, and not those of another unit', () => {
    const whole = [entry(1, 0, '2026-01-10', '2026-02-01')];
    expect(maintenanceState(whole, 7n, '2026-11-23').kind).toBe('overdue');
    const other = [entry(1, 8, '2026-01-10', '2026-02-01')];
    expect(maintenanceState(other, 7n, '2026-11-23').kind).toBe('ok');
  });

  it('is fine when the latest entry plans no next date', () => {
    const entries = [entry(1, 1, '2026-01-10', '2026-02-01'), entry(2, 1, '2026-11-01', '')];
    expect(maintenanceState(entries, 1n, '2026-11-23')).toEqual({ kind: 'ok' });
  });
});

describe('dates', () => {
  it('formats a calendar date as DD.MM.YYYY and leaves anything else as it is', () => {
    expect(formatDate('2026-03-07')).toBe('07.03.2026');
    expect(formatDate('')).toBe('');
  });

  it('gives today in local time', () => {
    expect(today(new Date(2026, 0, 5, 23, 30))).toBe('2026-01-05');
  });
});
