import VerifiedUserOutlined from '@mui/icons-material/VerifiedUserOutlined';
import {
  Box,
  Button,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  Paper,
} from '@mui/material';
import { Link } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { rightLabel } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { useRights } from '../../api/auth-queries';

export function RolesPage() {
  const query = useRights();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else {
    content = (
      <Paper variant="outlined">
        <List disablePadding>
          {query.data.rights.map((right) => (
            <ListItem key={right.id} disablePadding divider>
              <ListItemButton component={Link} to={`${paths.adminRoles}/${right.id}`}>
                <ListItemIcon>
                  <VerifiedUserOutlined color="primary" />
                </ListItemIcon>
                <ListItemText primary={rightLabel(right.name)} />
              </ListItemButton>
              {/* Spec §2 puts this button on every right; it leads to the tests of education. */}
              <Box sx={{ px: 2, flexShrink: 0 }}>
                <Button variant="outlined" size="small" component={Link} to={paths.adminTests}>
                  {adminStrings.role.createTest}
                </Button>
              </Box>
            </ListItem>
          ))}
        </List>
      </Paper>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminRoles} />
      {content}
    </>
  );
}
