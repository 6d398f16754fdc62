import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { errorMessage } from '@/lib/errors';
import { firstSignInStrings } from '@/lib/first-sign-in-strings';
import { notify } from '@/lib/notifications';

import { useMakeFirstSignInCode, useSendInvitation } from '../../api/auth-queries';
import { FirstSignInCodeSheet } from './first-sign-in-code-sheet';

const text = firstSignInStrings.admin;

/** What the printed sheet shows: kept in the page's memory only, never in an address. */
export type CodeSheet = {
  code: string;
  login: string;
  fullName: string;
  signInUrl: string;
  /** RFC 3339. */
  expiresAt: string;
};

/**
 * A first sign-in without an administrator typing a password (issue 39.3): an invitation by
 * e-mail, or a printed one-time code for someone without e-mail. The server refuses a person
 * who has a password or is blocked, and says why.
 */
export function FirstSignIn({ userId }: { userId: bigint }) {
  const [sheet, setSheet] = useState<CodeSheet | null>(null);
  const invite = useSendInvitation();
  const makeCode = useMakeFirstSignInCode();
  const sendInvitation = () =>
    invite.mutate(
      { userId },
      {
        onSuccess: (reply) => notify.success(text.invitationSent(reply.email)),
        onError: (error) => notify.error(errorMessage(error)),
      },
    );
  const printCode = () =>
    makeCode.mutate(
      { userId },
      {
        onSuccess: (reply) =>
          setSheet({
            code: reply.code,
            login: reply.login,
            fullName: reply.fullName,
            signInUrl: reply.signInUrl,
            expiresAt: reply.expiresAt ? timestampDate(reply.expiresAt).toISOString() : '',
          }),
        onError: (error) => notify.error(errorMessage(error)),
      },
    );
  return (
    <Stack spacing={1} sx={{ mt: 3, alignItems: 'flex-start' }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.hint}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
        <Button variant="outlined" onClick={sendInvitation} loading={invite.isPending}>
          {text.sendInvitation}
        </Button>
        <Button variant="outlined" onClick={printCode} loading={makeCode.isPending}>
          {text.makeCode}
        </Button>
      </Stack>
      {sheet && <FirstSignInCodeSheet sheet={sheet} onClose={() => setSheet(null)} />}
    </Stack>
  );
}
