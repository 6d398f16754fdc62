import { Box, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';

import { adminStrings } from '@/lib/admin-strings';
import { type AuditRecord } from '@/lib/audit';
import { actorLabel, changeLabel, deedLabel } from '@/lib/audit-labels';
import { useAuditNames } from '@/lib/audit-names';
import { formatMoment } from '@/lib/dates';

import { DataTable } from './data-table';

const text = adminStrings.audit;

/** A run of this many characters without a space is no word a person reads: a hash, an address. */
const longToken = 25;
const tokens = /(\S+)/;

/**
 * `text` as a table cell shows it: a hyphenated word (a date 2027-05-06, a serial number
 * T5-21A0457, «HEPA-фильтра») stays on one line, where a browser would break it after the
 * hyphen; a hash, a file's address or a request id may wrap anywhere rather than widen the
 * table by hundreds of pixels.
 */
function WholeWords({ text: shown }: { text: string }) {
  return shown.split(tokens).map((part, index) => {
    if (index % 2 === 0 || (part.length < longToken && !part.includes('-'))) return part;
    const long = part.length >= longToken;
    return (
      <Box component="span" key={index} sx={long ? { overflowWrap: 'anywhere' } : { whiteSpace: 'nowrap' }}>
        {part}
      </Box>
    );
  });
}

type AuditRecordsProps = { records: AuditRecord[]; showWhat?: boolean };

/** Records as a table, newest first: when, who, what was done, the fields changed, from where. */
export function AuditRecords({ records, showWhat = true }: AuditRecordsProps) {
  const nameOf = useAuditNames(records);
  return (
    <DataTable label={text.table}>
      <TableHead>
        <TableRow>
          <TableCell>{text.when}</TableCell>
          <TableCell>{text.who}</TableCell>
          {showWhat && <TableCell>{text.what}</TableCell>}
          <TableCell>{text.changes}</TableCell>
          <TableCell>{text.from}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {records.map((record) => (
          <TableRow key={`${record.service}:${record.id}`} data-testid="audit-record">
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatMoment(record.time)}</TableCell>
            <TableCell sx={{ minWidth: 120 }}>{actorLabel(record)}</TableCell>
            {showWhat && <TableCell sx={{ minWidth: 160 }}>{deedLabel(record)}</TableCell>}
            <TableCell sx={{ minWidth: 240 }}>
              {record.changes.length === 0 && !showWhat
                ? (text.actions[record.action] ?? record.action)
                : record.changes.map((change) => (
                    <Typography key={change.field} variant="body2">
                      <WholeWords text={changeLabel(record.entity, change, nameOf)} />
                    </Typography>
                  ))}
            </TableCell>
            <TableCell sx={{ minWidth: 120 }}>
              <Typography variant="body2">
                <WholeWords text={record.address} />
              </Typography>
              {record.requestId && (
                <Typography variant="caption" sx={{ color: 'text.secondary' }}>
                  <WholeWords text={text.requestId(record.requestId)} />
                </Typography>
              )}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </DataTable>
  );
}
