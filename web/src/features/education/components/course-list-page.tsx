import { List, ListItemButton, ListItemIcon, ListItemText, Paper, Typography } from '@mui/material';
import { Link } from 'react-router';

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
      <Paper variant="outlined">
        <List disablePadding>
          {query.data.courses.map((course) => (
            <ListItemButton key={course.id} component={Link} to={coursePath(course.id)} divider>
              <ListItemIcon sx={{ minWidth: 36 }}>
                <Typography aria-hidden sx={{ color: 'primary.main', fontWeight: 700, fontSize: 22 }}>
                  +
                </Typography>
              </ListItemIcon>
              <ListItemText primary={course.title} slotProps={{ primary: { sx: { fontWeight: 500 } } }} />
            </ListItemButton>
          ))}
        </List>
      </Paper>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.courses} />
      {content}
    </>
  );
}
