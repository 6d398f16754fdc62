import HubOutlined from '@mui/icons-material/HubOutlined';
import { Box, Chip, Link, List, ListItem, ListItemIcon, Paper, Stack, Typography } from '@mui/material';
import { useRef } from 'react';
import { Link as RouterLink } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { wrappingChip } from '@/components/wrapping-chip';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { strings } from '@/lib/strings';

import { useServiceAccounts, type ServiceAccount } from '../../api/service-account-queries';
import { lastUse, ownerName, scopeTitle } from '../../utils/service-accounts';
import { CopyButton } from './copy-button';
import { CreateServiceAccountDialog } from './create-service-account-dialog';
import { StateChip } from './state-chip';

const text = adminStrings.serviceAccounts;
const collator = new Intl.Collator('ru-RU', { numeric: true });

/** The client id in a fixed-width font, with its copy button. */
function ClientId({ value }: { value: string }) {
  const shown = useRef<HTMLElement>(null);
  // Where the clipboard cannot be written, the id is selected for Ctrl+C.
  const select = () => {
    const selection = window.getSelection();
    if (!shown.current || !selection) return;
    selection.selectAllChildren(shown.current);
  };
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', minWidth: 0 }}>
      <Typography variant="body2" sx={{ color: 'text.secondary', flexShrink: 0 }}>
        {text.clientIdShort}:
      </Typography>
      <Box
        component="code"
        ref={shown}
        sx={{ fontFamily: 'monospace', fontSize: '0.875rem', overflowWrap: 'anywhere' }}
      >
        {value}
      </Box>
      <CopyButton value={value} what={text.clientIdShort} select={select} />
    </Stack>
  );
}

function AccountItem({ account }: { account: ServiceAccount }) {
  const used = lastUse(account);
  return (
    <ListItem divider alignItems="flex-start" sx={{ py: 2 }}>
      {/* A phone needs the width for the client id. */}
      <ListItemIcon sx={{ mt: 0.5, display: { xs: 'none', sm: 'flex' } }}>
        <HubOutlined color={account.active ? 'primary' : 'disabled'} />
      </ListItemIcon>
      <Stack spacing={1} sx={{ minWidth: 0, flex: 1 }}>
        <Stack direction="row" sx={{ alignItems: 'center', flexWrap: 'wrap', columnGap: 1, rowGap: 0.5 }}>
          <Link
            component={RouterLink}
            to={`${paths.adminServiceAccounts}/${account.id}`}
            underline="hover"
            sx={{ fontWeight: 600, fontSize: '1.0625rem', overflowWrap: 'anywhere' }}
          >
            {account.name}
          </Link>
          <StateChip active={account.active} />
        </Stack>
        {account.description && (
          <Typography variant="body2" sx={{ color: 'text.secondary', overflowWrap: 'anywhere' }}>
            {account.description}
          </Typography>
        )}
        <ClientId value={account.clientId} />
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.75 }} aria-label={text.scopes} role="list">
          {account.scopes.map((scope) => (
            <Chip
              key={scope}
              role="listitem"
              label={scopeTitle(scope)}
              size="small"
              variant="outlined"
              sx={wrappingChip}
            />
          ))}
        </Stack>
        <Typography variant="body2">
          <Box component="span" sx={{ color: 'text.secondary' }}>
            {text.lastUse}:{' '}
          </Box>
          {used}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {text.ownerIs(ownerName(account))}
        </Typography>
      </Stack>
    </ListItem>
  );
}

/** «Внешние системы»: every registered system with its client id, scopes, state and last use. */
export function ServiceAccountsPage() {
  const query = useServiceAccounts();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{text.empty}</Typography>;
  } else {
    const accounts = [...query.data].sort((a, b) => collator.compare(a.name, b.name));
    content = (
      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <List disablePadding aria-label={text.listLabel}>
          {accounts.map((account) => (
            <AccountItem key={account.id} account={account} />
          ))}
        </List>
      </Paper>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminServiceAccounts} action={<CreateServiceAccountDialog />} />
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2.5, maxWidth: 880 }}>
        {text.intro}
      </Typography>
      {content}
    </>
  );
}
