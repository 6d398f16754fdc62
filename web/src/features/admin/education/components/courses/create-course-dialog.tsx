import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';

import { useCreateCourse } from '../../api/education-queries';
import { courseRequest, emptyCourse, type CourseFormValues } from '../../utils/form-values';
import { CourseForm } from './course-form';

const text = adminStrings.education.course;

export function CreateCourseDialog() {
  const create = useCreateCourse();
  return (
    <CreateDialog
      formId="create-course"
      text={text}
      failed={() => text.createFailed}
      closeDelayMs={2000}
      create={(values: CourseFormValues) => create.mutateAsync(courseRequest(values))}
    >
      {(form) => <CourseForm {...form} initial={emptyCourse} />}
    </CreateDialog>
  );
}
