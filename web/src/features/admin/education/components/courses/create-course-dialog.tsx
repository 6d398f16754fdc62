import { adminStrings } from '@/lib/admin-strings';

import { useCreateCourse } from '../../api/education-queries';
import { emptyCourse } from '../../utils/form-values';
import { CreateDialog } from '../create-dialog';
import { CourseForm } from './course-form';

export function CreateCourseDialog() {
  return (
    <CreateDialog formId="create-course" text={adminStrings.education.course} creation={useCreateCourse()}>
      {(form) => <CourseForm {...form} initial={emptyCourse} />}
    </CreateDialog>
  );
}
