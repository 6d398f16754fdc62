import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { refusalShownByPage } from '@/lib/errors';
import { skipUntilKnown } from '@/lib/skip-until-known';

const education = EducationService.method;

/**
 * A taken try changes the test's summary, the learner's results and "My tests": whatever
 * the learner does refreshes every query of the education service.
 */
export function useRefreshEducation() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: EducationService, cardinality: undefined }),
    });
}

/** The courses assigned to the signed-in user (user 0 is the caller). */
export const useMyCourses = () => useQuery(education.listCoursesByUser, { userId: 0n });

export const useCourse = (courseId: bigint | undefined) =>
  useQuery(
    education.getCourse,
    skipUntilKnown(courseId, (id) => ({ courseId: id })),
    { meta: refusalShownByPage },
  );

export const useCourseArticles = (courseId: bigint | undefined) =>
  useQuery(
    education.listArticlesByCourse,
    skipUntilKnown(courseId, (id) => ({ courseId: id })),
    { meta: refusalShownByPage },
  );

export const useArticle = (articleId: bigint | undefined) =>
  useQuery(
    education.getArticle,
    skipUntilKnown(articleId, (id) => ({ articleId: id })),
    { meta: refusalShownByPage },
  );

export const useArticleTests = (articleId: bigint | undefined) =>
  useQuery(
    education.listTestsByArticle,
    skipUntilKnown(articleId, (id) => ({ articleId: id })),
    { meta: refusalShownByPage },
  );

export const useTest = (testId: bigint | undefined) =>
  useQuery(
    education.getTest,
    skipUntilKnown(testId, (id) => ({ testId: id })),
    { meta: refusalShownByPage },
  );

/** The test's summary for the signed-in user, with the tries they have left. */
export const useTestSummary = (testId: bigint | undefined) =>
  useQuery(
    education.getTestSummary,
    skipUntilKnown(testId, (id) => ({ testId: id, userId: 0n })),
    { meta: refusalShownByPage },
  );

/** The signed-in user's results, oldest first: on one test, or on every test (0). */
export const useMyResults = (testId: bigint | undefined) =>
  useQuery(
    education.listUserTestResults,
    skipUntilKnown(testId, (id) => ({ testId: id, userId: 0n })),
    { meta: refusalShownByPage },
  );

export const useMyTests = () => useQuery(education.listMyTests);

export const useStartAttempt = () => useMutation(education.startAttempt);

export const useCompleteTest = () => useMutation(education.completeTest);
