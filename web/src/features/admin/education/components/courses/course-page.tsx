import { Button, Paper, Stack } from '@mui/material';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useFullCourse, useUpdateCourse } from '../../api/education-queries';
import { CourseCompliance } from './course-compliance';
import { CourseForm } from './course-form';

const formId = 'course';

export function CoursePage() {
  const courseId = parseId(useParams().adminCourseId);
  const query = useFullCourse(courseId);
  const update = useUpdateCourse();

  if (courseId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const course = query.data.course;
  if (!course) return <LoadError />;

  return (
    <Stack spacing={3} sx={{ maxWidth: 960 }}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader title={course.title} />
        <Stack spacing={3}>
          {/* Saved data comes back refetched: a new key starts the form from it. */}
          <CourseForm
            key={query.dataUpdatedAt}
            id={formId}
            initial={{
              title: course.title,
              description: course.description,
              dateDeadline: course.dateDeadline,
              userIds: query.data.userIds,
              articleIds: query.data.articles.map((article) => article.id),
            }}
            disabled={update.isPending}
            onSubmit={(values) =>
              update.mutate(
                { id: course.id, ...values },
                {
                  onSuccess: () => notify.success(adminStrings.education.course.saved),
                  onError: (error) => notify.error(errorMessage(error)),
                },
              )
            }
          />
          <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
            <Button type="submit" form={formId} variant="contained" loading={update.isPending}>
              {strings.common.save}
            </Button>
          </Stack>
        </Stack>
      </Paper>
      <CourseCompliance courseId={course.id} />
    </Stack>
  );
}
