import {
  callUnaryMethod,
  createConnectQueryKey,
  useMutation,
  useQuery,
  useTransport,
} from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { skipUntilKnown } from '@/lib/skip-until-known';
import { strings } from '@/lib/strings';
import { htmlToText, testToText } from '@/lib/text-diff';

const education = EducationService.method;

// Courses, articles and tests show in each other's forms (a course's articles, an article's
// test), so a change refreshes every query of the education service.
function useRefreshEducation() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: EducationService, cardinality: undefined }),
    });
}

export const useCourses = () => useQuery(education.listCourses);

export const useFullCourse = (courseId: bigint | undefined) =>
  useQuery(
    education.getFullCourseInfo,
    skipUntilKnown(courseId, (id) => ({ courseId: id })),
  );

export const useCourseCompliance = (courseId: bigint) =>
  useQuery(education.getCourseCompliance, { courseId });

export const useArticles = () => useQuery(education.listArticles);

export const useArticle = (articleId: bigint | undefined) =>
  useQuery(
    education.getArticle,
    skipUntilKnown(articleId, (id) => ({ articleId: id })),
  );

export const useTests = () => useQuery(education.listTests);

export const useFullTest = (testId: bigint | undefined) =>
  useQuery(
    education.getFullTest,
    skipUntilKnown(testId, (id) => ({ testId: id })),
  );

export const useQuestionAnalysis = (testId: bigint) => useQuery(education.getQuestionAnalysis, { testId });

export const useCreateCourse = () =>
  useMutation(education.createCourse, { onSuccess: useRefreshEducation() });
export const useUpdateCourse = () =>
  useMutation(education.updateCourse, { onSuccess: useRefreshEducation() });
export const useCreateArticle = () =>
  useMutation(education.createArticle, { onSuccess: useRefreshEducation() });
export const useUpdateArticle = () =>
  useMutation(education.updateArticle, { onSuccess: useRefreshEducation() });
export const useCreateTest = () => useMutation(education.createTest, { onSuccess: useRefreshEducation() });
export const useUpdateTest = () => useMutation(education.updateTest, { onSuccess: useRefreshEducation() });

// Revisions (issue 25): the history under an article's and a test's editor.

export const useArticleRevisions = (articleId: bigint) =>
  useQuery(education.listArticleRevisions, { articleId });
export const useTestRevisions = (testId: bigint) => useQuery(education.listTestRevisions, { testId });
export const useRestoreArticleRevision = () =>
  useMutation(education.restoreArticleRevision, { onSuccess: useRefreshEducation() });
export const useRestoreTestRevision = () =>
  useMutation(education.restoreTestRevision, { onSuccess: useRefreshEducation() });

/** An article's revision as text: its title, then its content without markup. */
export function useArticleRevisionText(articleId: bigint) {
  const transport = useTransport();
  return async (revisionId: bigint) => {
    const { article } = await callUnaryMethod(transport, education.getArticleRevision, {
      articleId,
      revisionId,
    });
    return article ? `${article.title}\n${htmlToText(article.content)}` : '';
  };
}

/** A test's revision as text: its fields, questions and answers, a line each. */
export function useTestRevisionText(testId: bigint) {
  const transport = useTransport();
  return async (revisionId: bigint) => {
    const { test } = await callUnaryMethod(transport, education.getTestRevision, { testId, revisionId });
    return test ? testToText(test, strings.revisions.testLabels) : '';
  };
}
