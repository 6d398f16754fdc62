// The admin equipment forms of a few text fields (a model; each reference entry): some
// required (spec §5's style: the field turns red with its own message), checked before
// anything is sent.

/** One field of a form. */
export type FormField = {
  name: string;
  label: string;
  /** The message under the field when it is left blank; without it the field is optional. */
  required?: string;
  helperText?: string;
  multiline?: boolean;
  /** A choice instead of free text; the value '' means none. */
  options?: readonly { value: string; label: string }[];
};

export type FormValues = Readonly<Record<string, string>>;

/** What the form starts with: `initial` where given, else empty. */
export const startValues = (fields: readonly FormField[], initial: FormValues = {}): FormValues =>
  Object.fromEntries(fields.map((field) => [field.name, initial[field.name] ?? '']));

/** Every value trimmed, and the names of the required fields left blank. */
export function checkRequired(
  fields: readonly FormField[],
  values: FormValues,
): { values: FormValues; missing: ReadonlySet<string> } {
  const trimmed = Object.fromEntries(fields.map((field) => [field.name, (values[field.name] ?? '').trim()]));
  const missing = new Set(
    fields
      .filter((field) => field.required !== undefined && trimmed[field.name] === '')
      .map((field) => field.name),
  );
  return { values: trimmed, missing };
}

/** The message of each required field left blank. */
export const requiredMessages = (fields: readonly FormField[], values: FormValues) => {
  const { missing } = checkRequired(fields, values);
  return Object.fromEntries(
    fields.filter((field) => missing.has(field.name)).map((field) => [field.name, field.required]),
  );
};
