import { lengthError, limits } from '@/lib/limits';

/** What a course and an article both have (spec §5: every one of them required). */
export type BasicValues = { title: string; description: string; dateDeadline: string };
export type BasicErrors = Partial<Record<keyof BasicValues, string>>;
export type BasicMessages = { titleRequired: string; descriptionRequired: string; deadlineRequired: string };

export function basicErrors(values: BasicValues, messages: BasicMessages): BasicErrors {
  const errors: BasicErrors = {};
  const title =
    values.title.trim() === '' ? messages.titleRequired : lengthError(values.title, limits.educationTitle);
  if (title !== undefined) errors.title = title;
  const description =
    values.description.trim() === ''
      ? messages.descriptionRequired
      : lengthError(values.description, limits.educationDescription);
  if (description !== undefined) errors.description = description;
  if (values.dateDeadline === '') errors.dateDeadline = messages.deadlineRequired;
  return errors;
}
