import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { EntityHistory } from '@/components/entity-history';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';

import { useFullCourse, useUpdateCourse } from '../../api/education-queries';
import { courseRequest, validityText, type CourseFormValues } from '../../utils/form-values';
import { CourseCompliance } from './course-compliance';
import { CourseForm } from './course-form';

export function CoursePage() {
  const courseId = parseId(useParams().adminCourseId);
  const query = useFullCourse(courseId);
  const update = useUpdateCourse();
  const data = query.data;
  // The course with its learners and articles, as the form edits them.
  const course = data?.course && {
    id: data.course.id,
    values: {
      title: data.course.title,
      description: data.course.description,
      dateDeadline: data.course.dateDeadline,
      validityMonths: validityText(data.course.validityMonths),
      userIds: data.userIds,
      articleIds: data.articles.map((article) => article.id),
    },
  };

  return (
    <EditPage
      id={courseId}
      load={query}
      entity={course}
      title={(course) => course.values.title}
      formId="course"
      save={(course, values: CourseFormValues) =>
        update.mutateAsync({ id: course.id, ...courseRequest(values) })
      }
      saved={adminStrings.education.course.saved}
      failed={errorMessage}
      maxWidth={960}
      below={(course) => (
        <>
          <CourseCompliance courseId={course.id} />
          <EntityHistory entity="course" entityId={course.id} version={query.dataUpdatedAt} />
        </>
      )}
    >
      {(course, form) => <CourseForm {...form} initial={course.values} />}
    </EditPage>
  );
}
