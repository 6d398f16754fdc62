import { Avatar, ListItemAvatar, ListItemButton, ListItemText, Typography } from '@mui/material';
import { Link } from 'react-router';

import { LetterGroups } from '@/components/letter-groups';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { useUsers } from '../../api/auth-queries';
import { groupUsersByLetter, listName } from '../../utils/user-names';
import { CreateUserDialog } from './create-user-dialog';

export function UsersPage() {
  const query = useUsers();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.users.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{strings.admin.user.empty}</Typography>;
  } else {
    content = (
      <LetterGroups
        groups={groupUsersByLetter(query.data.users)}
        renderItem={(user) => (
          <ListItemButton key={user.id} component={Link} to={`${paths.adminUsers}/${user.id}`} divider>
            <ListItemAvatar>
              <Avatar sx={{ bgcolor: 'secondary.main' }}>{listName(user).charAt(0)}</Avatar>
            </ListItemAvatar>
            <ListItemText primary={listName(user)} secondary={user.login} />
          </ListItemButton>
        )}
      />
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminUsers} action={<CreateUserDialog />} />
      {content}
    </>
  );
}
