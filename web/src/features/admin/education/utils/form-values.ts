import type { BasicValues } from './basic-values';

/**
 * A course as its form edits it. `validityMonths` is what was typed (digits only): empty or 0
 * means the course's passes never expire (issue 24).
 */
export type CourseFormValues = BasicValues & {
  validityMonths: string;
  userIds: bigint[];
  articleIds: bigint[];
};

export const emptyCourse: CourseFormValues = {
  title: '',
  description: '',
  dateDeadline: '',
  validityMonths: '',
  userIds: [],
  articleIds: [],
};

/** The longest validity the server accepts, in months (ten years). */
export const maxValidityMonths = 120;

/** A stored validity as the form shows it: never expiring is an empty field. */
export const validityText = (months: number) => (months > 0 ? String(months) : '');

/** Whether the typed validity is beyond what the server accepts. */
export const validityTooLong = (typed: string) => Number(typed || 0) > maxValidityMonths;

/** The create and update requests' fields of a course form's values. */
export const courseRequest = ({ validityMonths, ...values }: CourseFormValues) => ({
  ...values,
  validityMonths: Number(validityMonths || 0),
});

export type ArticleFormValues = BasicValues & { testId: bigint };

export const emptyArticle: ArticleFormValues = { title: '', description: '', dateDeadline: '', testId: 0n };
