import AutorenewOutlined from '@mui/icons-material/AutorenewOutlined';
import { Button, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { formatMoment, formatMomentToSecond } from '@/lib/dates';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';

import {
  useRevokeSecret,
  useRotateSecret,
  type IssuedSecret,
  type ServiceAccount,
  type ServiceSecret,
} from '../../api/service-account-queries';
import { ConfirmDialog } from './confirm-dialog';
import { SecretDialog } from './secret-dialog';
import { Section } from './section';

const text = adminStrings.serviceAccounts.secrets;

// A secret is named by when it was issued; a new one is often issued a minute after the last
// (rotation, then a check), so the second tells the two apart (issue 37).
const issuedAt = (secret: ServiceSecret) => formatMomentToSecond(secret.createdAt);

/** Oldest first: the order they were issued in, and the one a third would drop first. */
const byAge = (secrets: ServiceSecret[]) =>
  [...secrets].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);

/**
 * The account's live secrets (when issued, when last used), each revocable, and a new one
 * issued beside them: shown once, the previous one working until it is revoked.
 */
export function SecretsSection({ account }: { account: ServiceAccount }) {
  const rotate = useRotateSecret();
  const revoke = useRevokeSecret();
  const secrets = byAge(account.secrets);
  const [asking, setAsking] = useState<'rotate' | 'revoke'>();
  // What was asked about (the secret, the live ones), kept while its dialog closes over the
  // refreshed list.
  const [revoking, setRevoking] = useState<ServiceSecret>();
  const [live, setLive] = useState(secrets);
  const [issued, setIssued] = useState<IssuedSecret>();
  const ask = (question: 'rotate' | 'revoke', secret?: ServiceSecret) => {
    setLive(secrets);
    setRevoking(secret);
    setAsking(question);
  };
  const oldest = live[0];

  const failed = (error: unknown) => notify.error(errorMessage(error));
  const confirmRotate = () =>
    rotate.mutate(account.id, {
      onSuccess: ({ clientSecret }) => setIssued({ clientId: account.clientId, clientSecret }),
      onError: failed,
      onSettled: () => setAsking(undefined),
    });
  const confirmRevoke = (secret: ServiceSecret) =>
    revoke.mutate(
      { id: account.id, secretId: secret.id },
      {
        onSuccess: () => notify.success(text.revoked),
        onError: failed,
        onSettled: () => setAsking(undefined),
      },
    );

  return (
    <Section title={text.title}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.hint}
      </Typography>
      {secrets.length === 0 ? (
        <Typography>{text.none}</Typography>
      ) : (
        <List disablePadding dense aria-label={text.listLabel}>
          {secrets.map((secret) => {
            const issued = issuedAt(secret);
            const used = formatMoment(secret.lastUsedAt);
            return (
              <ListItem
                key={secret.id}
                divider
                disableGutters
                secondaryAction={
                  <Button
                    color="error"
                    size="small"
                    aria-label={text.revokeLabel(issued)}
                    onClick={() => ask('revoke', secret)}
                  >
                    {text.revoke}
                  </Button>
                }
                sx={{ pr: 12 }}
              >
                <ListItemText
                  primary={text.issued(issued)}
                  secondary={used === '' ? text.neverUsed : text.lastUsed(used)}
                />
              </ListItem>
            );
          })}
        </List>
      )}
      <Stack direction="row">
        <Button variant="outlined" startIcon={<AutorenewOutlined />} onClick={() => ask('rotate')}>
          {text.rotate}
        </Button>
      </Stack>
      <ConfirmDialog
        open={asking === 'rotate'}
        title={text.rotateTitle}
        confirmLabel={text.rotateConfirm}
        danger={live.length >= 2}
        pending={rotate.isPending}
        onConfirm={confirmRotate}
        onCancel={() => setAsking(undefined)}
      >
        <p>{text.rotateText}</p>
        {live.length >= 2 && oldest && <p>{text.rotateDropsOldest(issuedAt(oldest))}</p>}
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === 'revoke'}
        title={text.revokeTitle}
        confirmLabel={text.revoke}
        danger
        pending={revoke.isPending}
        onConfirm={() => revoking && confirmRevoke(revoking)}
        onCancel={() => setAsking(undefined)}
      >
        <p>{revoking && text.revokeText(issuedAt(revoking))}</p>
        {live.length === 1 && <p>{text.revokeLast}</p>}
      </ConfirmDialog>
      <SecretDialog issued={issued} kind="rotated" onClose={() => setIssued(undefined)} />
    </Section>
  );
}
