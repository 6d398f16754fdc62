import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { FormControlLabel, Switch, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';

import { NotificationService } from '@/gen/portal/education/v1/notification_pb';
import { cabinetStrings } from '@/lib/cabinet-strings';
import { notify } from '@/lib/notifications';

/** The person's own choice of the daily e-mail digest (issue 24), kept by education. */
export function DigestSetting() {
  const client = useQueryClient();
  const setting = useQuery(NotificationService.method.getMyDigestSettings);
  const change = useMutation(NotificationService.method.setMyDigestSettings, {
    onSuccess: async (reply) => {
      notify.success(reply.digestEnabled ? cabinetStrings.digestOn : cabinetStrings.digestOff);
      await client.invalidateQueries({
        queryKey: createConnectQueryKey({
          schema: NotificationService.method.getMyDigestSettings,
          cardinality: 'finite',
        }),
      });
    },
  });
  return (
    <>
      <Typography variant="h6" component="h3" sx={{ mt: 4, mb: 1 }}>
        {cabinetStrings.digestTitle}
      </Typography>
      <FormControlLabel
        control={
          <Switch
            checked={setting.data?.digestEnabled ?? false}
            disabled={!setting.data || change.isPending}
            onChange={(event) => change.mutate({ digestEnabled: event.target.checked })}
          />
        }
        label={cabinetStrings.digestLabel}
      />
    </>
  );
}
