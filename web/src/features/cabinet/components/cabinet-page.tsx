import { useQuery } from '@connectrpc/connect-query';
import { Avatar, Box, Chip, Divider, Paper, Stack, Typography } from '@mui/material';
import { Fragment, type ReactNode } from 'react';

import { Loading, LoadError } from '@/components/load-state';
import { wrappingChip } from '@/components/wrapping-chip';
import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { cabinetStrings } from '@/lib/cabinet-strings';
import { fullName } from '@/lib/person-name';
import { rightLabel } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { DigestSetting } from './digest-setting';
import { MySessions } from './my-sessions';
import { TwoStepSetting } from './two-step-setting';

const text = (value: string | undefined) => value || strings.common.notSet;

const chips = (labels: string[], none: string = strings.common.notSet) =>
  labels.length === 0 ? (
    text(none)
  ) : (
    <Stack direction="row" useFlexGap spacing={1} sx={{ flexWrap: 'wrap' }}>
      {labels.map((label) => (
        <Chip key={label} label={label} size="small" sx={wrappingChip} />
      ))}
    </Stack>
  );

/** The signed-in user's own profile (GetMe). */
export function CabinetPage() {
  const me = useQuery(AuthService.method.getMe);
  if (me.isPending) return <Loading />;
  if (me.isError) return <LoadError />;

  const { user, status, positions, departments, rights } = me.data;
  const initials = [user?.surname, user?.name].map((part) => part?.charAt(0) ?? '').join('');
  const fields: [string, ReactNode][] = [
    [cabinetStrings.surname, text(user?.surname)],
    [cabinetStrings.name, text(user?.name)],
    [cabinetStrings.lastName, text(user?.lastName)],
    [cabinetStrings.login, text(user?.login)],
    [cabinetStrings.email, text(user?.email)],
    [cabinetStrings.status, text(status?.name)],
    [cabinetStrings.positions, chips(positions.map((position) => position.title))],
    [cabinetStrings.departments, chips(departments.map((department) => department.title))],
    [
      cabinetStrings.rights,
      chips(
        rights.map((right) => rightLabel(right.name)),
        cabinetStrings.noRights,
      ),
    ],
  ];

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2.5, sm: 4 }, maxWidth: 880 }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 3 }}>
        <Avatar sx={{ bgcolor: 'primary.main', width: 64, height: 64, fontSize: 24 }}>{initials}</Avatar>
        <div>
          <Typography variant="h5" component="h2" sx={{ fontWeight: 600 }}>
            {user && fullName(user)}
          </Typography>
          <Typography sx={{ color: 'text.secondary' }}>{user?.login}</Typography>
        </div>
      </Stack>
      <Divider />
      <Box
        component="dl"
        sx={{
          display: 'grid',
          gridTemplateColumns: { xs: '1fr', sm: '200px 1fr' },
          columnGap: 3,
          rowGap: { xs: 0.5, sm: 2 },
          m: 0,
          mt: 3,
        }}
      >
        {fields.map(([label, value]) => (
          <Fragment key={label}>
            <Typography component="dt" sx={{ color: 'text.secondary', mt: { xs: 1.5, sm: 0 } }}>
              {label}
            </Typography>
            <Typography component="dd" sx={{ m: 0 }}>
              {value}
            </Typography>
          </Fragment>
        ))}
      </Box>
      <Divider sx={{ mt: 3 }} />
      <DigestSetting />
      <Divider sx={{ mt: 3 }} />
      <TwoStepSetting />
      <Divider sx={{ mt: 3 }} />
      <MySessions />
    </Paper>
  );
}
