import { paths } from '@/config/paths';

// The learner's pages nest course → article → test (see ../routes.tsx).
export const coursePath = (courseId: bigint) => `${paths.courses}/${courseId}`;

export const articlePath = (courseId: bigint, articleId: bigint) =>
  `${coursePath(courseId)}/article/${articleId}`;

export const testPath = (courseId: bigint, articleId: bigint, testId: bigint) =>
  `${articlePath(courseId, articleId)}/test/${testId}`;
