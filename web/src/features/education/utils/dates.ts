import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';

const pad = (value: number) => String(value).padStart(2, '0');

/** A calendar day `YYYY-MM-DD` of the person's own clock. */
export const localDay = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/** Spec §9's `DD-MM-YYYY: HH-MM`, in the person's time zone. */
export function formatInstant(timestamp: Timestamp | undefined): string {
  if (!timestamp) return '';
  const date = timestampDate(timestamp);
  return `${pad(date.getDate())}-${pad(date.getMonth() + 1)}-${date.getFullYear()}: ${pad(date.getHours())}-${pad(date.getMinutes())}`;
}

/** `HH:MM` of an instant, in the person's time zone. */
export function formatTime(timestamp: Timestamp | undefined): string {
  if (!timestamp) return '';
  const date = timestampDate(timestamp);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A test not yet passed whose deadline (`YYYY-MM-DD`) is a day before today. */
export const isOverdue = (deadline: string, isPassed: boolean, today: Date = new Date()) =>
  !isPassed && deadline !== '' && deadline < localDay(today);
