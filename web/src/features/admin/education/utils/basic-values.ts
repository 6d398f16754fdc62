/** What a course and an article both have (spec §5: every one of them required). */
export type BasicValues = { title: string; description: string; dateDeadline: string };
export type BasicErrors = Partial<Record<keyof BasicValues, string>>;
export type BasicMessages = { titleRequired: string; descriptionRequired: string; deadlineRequired: string };

export function basicErrors(values: BasicValues, messages: BasicMessages): BasicErrors {
  const errors: BasicErrors = {};
  if (values.title.trim() === '') errors.title = messages.titleRequired;
  if (values.description.trim() === '') errors.description = messages.descriptionRequired;
  if (values.dateDeadline === '') errors.dateDeadline = messages.deadlineRequired;
  return errors;
}
