import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { skipUntilKnown } from '@/lib/skip-until-known';

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
