import FileDownloadOutlined from '@mui/icons-material/FileDownloadOutlined';
import { Alert, Button, Stack, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import { AuditRecords } from '@/components/audit-records';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { adminStrings } from '@/lib/admin-strings';
import { auditExportPath, getAuditRecords, type AuditFilter } from '@/lib/audit';
import { notify } from '@/lib/notifications';
import { downloadWithSession } from '@/lib/session/download';
import { strings } from '@/lib/strings';

import { back, current, firstPage, forward, pageNumber, type CursorStack } from '../utils/cursor-stack';
import { filterFromUrl, periodReversed } from '../utils/filter-from-url';
import { AuditFilters } from './audit-filters';

const text = adminStrings.audit;
const PAGE_SIZE = 50;

/**
 * «Журнал действий»: every service's records, newest first, filtered and paged (issue 25) by
 * cursor: «Далее» costs the same on every page, where a page number would read all before it.
 */
export function AuditPage() {
  const [search] = useSearchParams();
  // The filters as shown, and the last of them the server can answer (a reversed period is
  // told by a toast and keeps the last good list, as the statistics page does).
  const [filter, setFilter] = useState<AuditFilter>(() => filterFromUrl(search));
  const [applied, setApplied] = useState<AuditFilter>(filter);
  const [cursors, setCursors] = useState<CursorStack>(firstPage);
  const [exporting, setExporting] = useState(false);
  const cursor = current(cursors);
  const query = useQuery({
    queryKey: ['audit', applied, cursor, PAGE_SIZE],
    queryFn: () => getAuditRecords(applied, cursor === null ? 1 : { cursor }, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const changeFilter = (next: AuditFilter) => {
    setFilter(next);
    if (periodReversed(next)) notify.error(text.datesReversed);
    else {
      setApplied(next);
      setCursors(firstPage);
    }
  };
  const exportCsv = async () => {
    setExporting(true);
    const failure = await downloadWithSession(auditExportPath(applied, new Date()), 'audit.csv');
    setExporting(false);
    if (failure !== null) notify.error(failure);
  };

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else {
    const { records, total, incomplete, missing, nextCursor } = query.data;
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    const page = pageNumber(cursors);
    content = (
      <Stack spacing={2}>
        {incomplete && (
          <Alert severity="warning">
            {text.incomplete(missing.map((s) => text.services[s] ?? s).join(', '))}
          </Alert>
        )}
        <Typography role="status" sx={{ color: 'text.secondary' }}>
          {text.found(total)}
        </Typography>
        {records.length === 0 ? <Typography>{text.empty}</Typography> : <AuditRecords records={records} />}
        {(page > 1 || nextCursor) && (
          <Stack
            component="nav"
            aria-label={text.pages}
            direction="row"
            spacing={2}
            sx={{ alignSelf: 'center', alignItems: 'center' }}
          >
            <Button disabled={page === 1 || query.isPlaceholderData} onClick={() => setCursors(back)}>
              {text.previous}
            </Button>
            <Typography>{text.pageOf(page, Math.max(page, pages))}</Typography>
            <Button
              disabled={!nextCursor || query.isPlaceholderData}
              onClick={() => nextCursor && setCursors((stack) => forward(stack, nextCursor))}
            >
              {text.next}
            </Button>
          </Stack>
        )}
      </Stack>
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminAudit} />
      <Stack direction="row" sx={{ justifyContent: 'flex-end', mb: 2 }}>
        <Button
          variant="outlined"
          startIcon={<FileDownloadOutlined />}
          onClick={() => void exportCsv()}
          loading={exporting}
        >
          {text.exportCsv}
        </Button>
      </Stack>
      <AuditFilters value={filter} onChange={changeFilter} />
      {content}
    </>
  );
}
