import type { BasicValues } from './basic-values';

export type CourseFormValues = BasicValues & { userIds: bigint[]; articleIds: bigint[] };

export const emptyCourse: CourseFormValues = {
  title: '',
  description: '',
  dateDeadline: '',
  userIds: [],
  articleIds: [],
};

export type ArticleFormValues = BasicValues & { testId: bigint };

export const emptyArticle: ArticleFormValues = { title: '', description: '', dateDeadline: '', testId: 0n };
