import { Alert, Button, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { getAuditRecords, noAuditFilter, type AuditFilter } from '@/lib/audit';
import { Right, useHasRight } from '@/lib/session/rights';

import { AuditRecords } from './audit-records';

const text = adminStrings.audit;
/** The newest records an entity's page shows; the journal has the rest. */
const SHOWN = 20;

type EntityHistoryProps = {
  /** The audit log's entity kind: `user`, `department`, `course`, `environment-model`… */
  entity: string;
  entityId: bigint | number;
  /** Changes when the entity was saved again (its query's `dataUpdatedAt`): read anew. */
  version?: number;
};

/**
 * An entity's own history (issue 25): its newest audit records from every service, for the
 * holders of UserManagement, who read the audit log; nothing for anyone else.
 */
export function EntityHistory({ entity, entityId, version = 0 }: EntityHistoryProps) {
  const allowed = useHasRight(Right.UserManagement) === true;
  if (!allowed) return null;
  return <History entity={entity} entityId={String(entityId)} version={version} />;
}

function History({ entity, entityId, version }: { entity: string; entityId: string; version: number }) {
  const filter: AuditFilter = { ...noAuditFilter, entity, entityId };
  const query = useQuery({
    queryKey: ['audit', filter, 1, SHOWN, version],
    queryFn: () => getAuditRecords(filter, 1, SHOWN),
  });
  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.records.length === 0) content = <Typography>{text.historyEmpty}</Typography>;
  else content = <AuditRecords records={query.data.records} showWhat={false} />;
  const journal = `${paths.adminAudit}?${new URLSearchParams({ entity, entityId }).toString()}`;
  return (
    <Stack component="section" aria-label={text.history} spacing={1.5} sx={{ mt: 4 }}>
      <Typography variant="h6" component="h2">
        {text.history}
      </Typography>
      {query.data?.incomplete && (
        <Alert severity="warning">
          {text.incomplete(query.data.missing.map((s) => text.services[s] ?? s).join(', '))}
        </Alert>
      )}
      {content}
      {(query.data?.total ?? 0) > SHOWN && (
        <Button component={RouterLink} to={journal} sx={{ alignSelf: 'flex-start' }}>
          {text.historyMore}
        </Button>
      )}
    </Stack>
  );
}
