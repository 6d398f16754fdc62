import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useFullCourse } from '../../api/education-queries';

/** The breadcrumb of courses/:adminCourseId: the course's title. */
export function CourseCrumb({ params }: { params: Params }) {
  const courseId = parseId(params.adminCourseId);
  const query = useFullCourse(courseId);
  const failed = courseId === undefined || query.isError;
  return query.data?.course?.title ?? (failed ? params.adminCourseId : strings.common.loading);
}
