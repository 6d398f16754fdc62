import { ListItemIcon, ListItemText, Typography } from '@mui/material';

import { LinkList, LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { strings } from '@/lib/strings';

import { useMyCourses } from '../api/education-queries';
import { coursePath } from '../utils/routes';

/** Spec §2 'Список курсов': the signed-in user's courses, each with a '+' mark. */
export function CourseListPage() {
  const query = useMyCourses();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.courses.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{strings.education.noCourses}</Typography>;
  } else {
    content = (
      <LinkList>
        {query.data.courses.map((course) => (
          <LinkListItem key={course.id} to={coursePath(course.id)}>
            <ListItemIcon sx={{ minWidth: 36 }}>
              <Typography aria-hidden sx={{ color: 'primary.main', fontWeight: 700, fontSize: 22 }}>
                +
              </Typography>
            </ListItemIcon>
            <ListItemText primary={course.title} slotProps={{ primary: { sx: { fontWeight: 500 } } }} />
          </LinkListItem>
        ))}
      </LinkList>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.courses} />
      {content}
    </>
  );
}
