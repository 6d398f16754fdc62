import type { MaintenanceEntry } from '@/gen/portal/wiki/v1/wiki_pb';

/** How far ahead maintenance counts as due (issue 12: within 30 days). */
export const dueWithinDays = 30;

export type MaintenanceState = { kind: 'overdue' | 'due'; nextDue: string } | { kind: 'ok' };

const dayMs = 24 * 60 * 60 * 1000;

/** A calendar date `YYYY-MM-DD` as UTC midnight in ms; NaN when it is not one. */
const dayOf = (date: string) => (/^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN);

/** Today in the browser's time zone, `YYYY-MM-DD`. */
export function today(now = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The newer of two entries: by the date of the work, then by when it was recorded. */
const newer = (a: MaintenanceEntry, b: MaintenanceEntry) => {
  if (a.date !== b.date) return a.date > b.date ? a : b;
  return a.id > b.id ? a : b;
};

/**
 * A unit's maintenance state by its latest logbook entry (its own, or one for the model as
 * a whole): overdue when that entry's next due date has passed, due when it comes within
 * 30 days, fine otherwise or when no next date was planned.
 */
export function maintenanceState(
  entries: readonly MaintenanceEntry[],
  environmentId: bigint,
  onDay: string = today(),
): MaintenanceState {
  const relevant = entries.filter(
    (entry) => entry.environmentId === environmentId || entry.environmentId === 0n,
  );
  if (relevant.length === 0) return { kind: 'ok' };
  const latest = relevant.reduce(newer);
  const due = dayOf(latest.nextDue);
  const now = dayOf(onDay);
  if (Number.isNaN(due) || Number.isNaN(now)) return { kind: 'ok' };
  if (due < now) return { kind: 'overdue', nextDue: latest.nextDue };
  if (due - now <= dueWithinDays * dayMs) return { kind: 'due', nextDue: latest.nextDue };
  return { kind: 'ok' };
}

/** `YYYY-MM-DD` as people read it here: DD.MM.YYYY. */
export function formatDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return match ? `${match[3]}.${match[2]}.${match[1]}` : date;
}
