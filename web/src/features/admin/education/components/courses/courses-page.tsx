import { ListItemText, Typography } from '@mui/material';

import { LinkList, LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { strings } from '@/lib/strings';

import { useCourses } from '../../api/education-queries';
import { CreateCourseDialog } from './create-course-dialog';

const text = adminStrings.education.course;

export function CoursesPage() {
  const query = useCourses();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.courses.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{text.empty}</Typography>;
  } else {
    content = (
      <LinkList label={strings.pages.adminCourses}>
        {query.data.courses.map((course) => (
          <LinkListItem key={course.id} to={`${paths.adminCourses}/${course.id}`}>
            <ListItemText primary={course.title} secondary={text.deadlineOn(course.dateDeadline)} />
          </LinkListItem>
        ))}
      </LinkList>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminCourses} action={<CreateCourseDialog />} />
      {content}
    </>
  );
}
