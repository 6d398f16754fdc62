import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';

// The portal's one way of writing dates (ARCHITECTURE.md): the spec's two formats (§9) on the
// spec's education screens, where it names them — a course's or an article's deadline as
// `YYYY-MM-DD`, the completion of a test as `DD-MM-YYYY: HH-MM` — and the Russian
// `DD.MM.YYYY` everywhere else (equipment: logbook, journals, due dates). All in the reader's
// own clock.

const two = (value: number) => String(value).padStart(2, '0');
const russianDay = (date: Date) => `${two(date.getDate())}.${two(date.getMonth() + 1)}.${date.getFullYear()}`;
const clock = (date: Date) => `${two(date.getHours())}:${two(date.getMinutes())}`;
const clockToSecond = (date: Date) => `${clock(date)}:${two(date.getSeconds())}`;

/** A calendar day `YYYY-MM-DD` of the reader's clock: what the server stores and date inputs hold. */
export const localDay = (date: Date) =>
  `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;

/** Today in the reader's time zone, `YYYY-MM-DD` (a form's default date). */
export const today = (now = new Date()) => localDay(now);

/** Spec §9's `DD-MM-YYYY: HH-MM`: when a test was completed, in the reader's time zone. */
export function formatInstant(timestamp: Timestamp | undefined): string {
  if (!timestamp) return '';
  const date = timestampDate(timestamp);
  const day = `${two(date.getDate())}-${two(date.getMonth() + 1)}-${date.getFullYear()}`;
  return `${day}: ${two(date.getHours())}-${two(date.getMinutes())}`;
}

/** A calendar date `YYYY-MM-DD` in the Russian style, `DD.MM.YYYY`; anything else as it is. */
export function formatDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return match ? `${match[3]}.${match[2]}.${match[1]}` : date;
}

/**
 * An instant as REST sends it (RFC 3339) in the Russian style, `DD.MM.YYYY, HH:MM` of the
 * reader's clock; '' for none or for text that is not an instant.
 */
export function formatMoment(instant: string | null | undefined): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  return `${russianDay(date)}, ${clock(date)}`;
}

/**
 * As `formatMoment`, to the second (`DD.MM.YYYY, HH:MM:SS`): for things told apart by when they
 * were made, two of which often fall in one minute (a system's secrets, issued one after the other).
 */
export function formatMomentToSecond(instant: string | null | undefined): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  return `${russianDay(date)}, ${clockToSecond(date)}`;
}

/** `DD.MM.YYYY HH:MM` of the reader's clock: a moment in a sentence (when a copy was saved). */
export const formatDayAndTime = (date: Date) => `${russianDay(date)} ${clock(date)}`;

/** `HH:MM` of an instant, in the reader's time zone. */
export function formatTime(timestamp: Timestamp | Date | undefined): string {
  if (!timestamp) return '';
  return clock(timestamp instanceof Date ? timestamp : timestampDate(timestamp));
}

/** A test not yet passed whose deadline (`YYYY-MM-DD`) is a day before today. */
export const isOverdue = (deadline: string, isPassed: boolean, now: Date = new Date()) =>
  !isPassed && deadline !== '' && deadline < localDay(now);
