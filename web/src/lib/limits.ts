import { strings } from './strings';

// The longest texts the services accept, in characters (Unicode scalar values, as Rust's
// `chars().count()` counts them). Each number is the server's own constant; a form stops a
// longer text itself, with a counter, instead of a bare error toast (issue 19 point 12).

export const limits = {
  /** services/education/src/domain/text.rs MAX_TITLE_CHARS: courses, articles, tests. */
  educationTitle: 300,
  /** services/education/src/domain/text.rs MAX_DESCRIPTION_CHARS. */
  educationDescription: 5_000,
  /** services/wiki/src/domain/text.rs MAX_NAME_CHARS: equipment, models, units, references. */
  wikiName: 300,
  /** services/auth/src/domain/department.rs MAX_TITLE_CHARS. */
  departmentTitle: 200,
  /** services/files/src/domain/file_name.rs MAX_TITLE_CHARS: a document's or video's title. */
  fileTitle: 200,
  /** services/auth/src/domain/service_account.rs MAX_NAME_CHARS: an external system's name. */
  serviceAccountName: 200,
  /** services/auth/src/domain/service_account.rs MAX_DESCRIPTION_CHARS. */
  serviceAccountDescription: 5_000,
} as const;

/** Characters as the server counts them (a surrogate pair is one). */
export const charCount = (text: string) => Array.from(text).length;

/** The message of a text over its limit, or undefined: forms refuse to submit with it. */
export const lengthError = (value: string, limit: number) =>
  charCount(value) > limit ? strings.limits.tooLong(limit) : undefined;
