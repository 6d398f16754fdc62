import ApartmentOutlined from '@mui/icons-material/ApartmentOutlined';
import { List, ListItemButton, ListItemIcon, ListItemText, Paper, Typography } from '@mui/material';
import { Link } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { useDepartmentsWithUsers } from '../../api/auth-queries';
import { CreateDepartmentDialog } from './create-department-dialog';

const collator = new Intl.Collator('ru-RU');

export function DepartmentsPage() {
  const query = useDepartmentsWithUsers();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.departments.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{strings.admin.department.empty}</Typography>;
  } else {
    const departments = [...query.data.departments].sort((a, b) => collator.compare(a.title, b.title));
    content = (
      <Paper variant="outlined">
        <List disablePadding>
          {departments.map((department) => (
            <ListItemButton
              key={department.id}
              component={Link}
              to={`${paths.adminDepartments}/${department.id}`}
              divider
            >
              <ListItemIcon>
                <ApartmentOutlined color="primary" />
              </ListItemIcon>
              <ListItemText
                primary={department.title}
                secondary={strings.admin.department.memberCount(department.users.length)}
              />
            </ListItemButton>
          ))}
        </List>
      </Paper>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminDepartments} action={<CreateDepartmentDialog />} />
      {content}
    </>
  );
}
