import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useFullCourse } from '../../api/education-queries';

/** The breadcrumb of courses/:adminCourseId: the course's title. */
export function CourseCrumb({ params }: { params: Params }) {
  const courseId = parseId(params.adminCourseId);
  const query = useFullCourse(courseId);
  return entityCrumb(query.data?.course?.title, courseId === undefined || query.isError);
}
