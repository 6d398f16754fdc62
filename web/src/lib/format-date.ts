const two = (value: number) => String(value).padStart(2, '0');

/** Spec §9's date and time of a result, `DD-MM-YYYY: HH-MM`, in the reader's time zone. */
export function formatDateTime(date: Date): string {
  const day = `${two(date.getDate())}-${two(date.getMonth() + 1)}-${date.getFullYear()}`;
  return `${day}: ${two(date.getHours())}-${two(date.getMinutes())}`;
}

/** A calendar day kept as `YYYY-MM-DD` (spec §9) shown as `DD-MM-YYYY`; anything else as it is. */
export function formatDay(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return match ? `${match[3]}-${match[2]}-${match[1]}` : day;
}
