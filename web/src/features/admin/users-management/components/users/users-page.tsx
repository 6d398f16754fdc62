import SearchOutlined from '@mui/icons-material/SearchOutlined';
import {
  Avatar,
  Chip,
  InputAdornment,
  ListItemAvatar,
  ListItemText,
  TextField,
  Typography,
} from '@mui/material';
import { useDeferredValue, useState } from 'react';

import { LetterGroups } from '@/components/letter-groups';
import { LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { fullName } from '@/lib/person-name';
import { strings } from '@/lib/strings';

import { useBlockingStatusIds, useUsers } from '../../api/auth-queries';
import { groupUsersByLetter, matchesUserSearch } from '../../utils/user-names';
import { CreateUserDialog } from './create-user-dialog';

const hint = (text: string) => <Typography sx={{ color: 'text.secondary' }}>{text}</Typography>;

export function UsersPage() {
  const query = useUsers();
  const blockingStatusIds = useBlockingStatusIds();
  // A hospital has hundreds of staff: the admin finds one by typing, not scrolling.
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);
  const found = query.data?.users.filter((user) => matchesUserSearch(user, deferredSearch)) ?? [];

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.users.length === 0) content = hint(adminStrings.user.empty);
  else if (found.length === 0) content = hint(adminStrings.user.notFound);
  else {
    content = (
      <LetterGroups
        groups={groupUsersByLetter(found)}
        renderItem={(user) => (
          <LinkListItem key={user.id} to={`${paths.adminUsers}/${user.id}`}>
            <ListItemAvatar>
              <Avatar sx={{ bgcolor: 'secondary.main' }}>{fullName(user).charAt(0)}</Avatar>
            </ListItemAvatar>
            <ListItemText primary={fullName(user)} secondary={user.login} />
            {blockingStatusIds.has(user.statusId) && (
              <Chip label={adminStrings.user.blocked} color="error" variant="outlined" size="small" />
            )}
          </LinkListItem>
        )}
      />
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminUsers} action={<CreateUserDialog />} />
      <TextField
        type="search"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        placeholder={adminStrings.user.search}
        fullWidth
        size="small"
        sx={{ mb: 2 }}
        slotProps={{
          htmlInput: { 'aria-label': adminStrings.user.search },
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchOutlined />
              </InputAdornment>
            ),
          },
        }}
      />
      {content}
    </>
  );
}
