import ApartmentOutlined from '@mui/icons-material/ApartmentOutlined';
import { ListItemIcon, ListItemText, Typography } from '@mui/material';

import { LinkList, LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
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
    content = <Typography sx={{ color: 'text.secondary' }}>{adminStrings.department.empty}</Typography>;
  } else {
    const departments = [...query.data.departments].sort((a, b) => collator.compare(a.title, b.title));
    content = (
      <LinkList>
        {departments.map((department) => (
          <LinkListItem key={department.id} to={`${paths.adminDepartments}/${department.id}`}>
            <ListItemIcon>
              <ApartmentOutlined color="primary" />
            </ListItemIcon>
            <ListItemText
              primary={department.title}
              secondary={adminStrings.department.memberCount(department.users.length)}
            />
          </LinkListItem>
        ))}
      </LinkList>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminDepartments} action={<CreateDepartmentDialog />} />
      {content}
    </>
  );
}
