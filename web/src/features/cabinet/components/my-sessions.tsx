import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { Alert, Box, Button, Chip, Stack, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';

import { AuthService, type Session } from '@/gen/portal/auth/v1/auth_pb';
import { cabinetStrings } from '@/lib/cabinet-strings';
import { formatDayAndTime } from '@/lib/dates';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';

const text = cabinetStrings;
const moment = (timestamp: Timestamp | undefined) =>
  timestamp ? formatDayAndTime(timestampDate(timestamp)) : '';

/**
 * The person's signed-in devices (issue 39.5): where each session was last used, and a way
 * out of any but this one, or of all others (a shared ward PC left signed in, a lost phone).
 * Ending sessions makes this device's access token stale too; the transport renews it.
 */
export function MySessions() {
  const client = useQueryClient();
  const sessions = useQuery(AuthService.method.listMySessions);
  const end = useMutation(AuthService.method.endMySessions, {
    onSuccess: async (reply, asked) => {
      notify.success(asked.allOthers ? text.othersEnded(reply.ended) : text.sessionEnded);
      await client.invalidateQueries({
        queryKey: createConnectQueryKey({
          schema: AuthService.method.listMySessions,
          cardinality: 'finite',
        }),
      });
    },
    onError: (error) => notify.error(errorMessage(error)),
  });
  const list = sessions.data?.sessions ?? [];
  const others = list.filter((session) => !session.current);

  return (
    <Box component="section" aria-labelledby="my-sessions-title">
      <Typography id="my-sessions-title" variant="h6" component="h3" sx={{ mt: 4, mb: 0.5 }}>
        {text.sessionsTitle}
      </Typography>
      <Typography sx={{ color: 'text.secondary', mb: 2 }}>{text.sessionsHint}</Typography>
      {sessions.isError && <Alert severity="error">{text.sessionsLoadFailed}</Alert>}
      <Stack component="ul" spacing={1.5} sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {list.map((session) => (
          <SessionItem
            key={session.id.toString()}
            session={session}
            busy={end.isPending}
            onEnd={() => end.mutate({ sessionIds: [session.id] })}
          />
        ))}
      </Stack>
      {others.length > 0 && (
        <Button
          variant="outlined"
          color="error"
          sx={{ mt: 2 }}
          disabled={end.isPending}
          onClick={() => end.mutate({ allOthers: true })}
        >
          {text.endOthers}
        </Button>
      )}
    </Box>
  );
}

function SessionItem({ session, busy, onEnd }: { session: Session; busy: boolean; onEnd: () => void }) {
  const device = session.device || text.unknownDevice;
  const details = [
    session.address,
    text.signedInAt(moment(session.createdAt)),
    text.lastSeenAt(moment(session.lastSeenAt)),
  ].filter(Boolean);
  return (
    <Box
      component="li"
      sx={{
        display: 'flex',
        flexWrap: 'wrap',
        alignItems: 'center',
        gap: 1.5,
        p: 1.5,
        border: 1,
        borderColor: 'divider',
        borderRadius: 1,
      }}
    >
      <Box sx={{ flex: '1 1 240px', minWidth: 0 }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{device}</Typography>
          {session.current && <Chip size="small" color="success" label={text.thisDevice} />}
        </Stack>
        <Typography variant="body2" sx={{ color: 'text.secondary', overflowWrap: 'anywhere' }}>
          {details.join(' · ')}
        </Typography>
      </Box>
      {!session.current && (
        <Button size="small" disabled={busy} onClick={onEnd} aria-label={text.endSessionOf(device)}>
          {text.endSession}
        </Button>
      )}
    </Box>
  );
}
