import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';

import { adminStrings } from '@/lib/admin-strings';
import { type AuditRecord } from '@/lib/audit';
import { actorLabel, changeLabel, deedLabel } from '@/lib/audit-labels';
import { formatMoment } from '@/lib/dates';

const text = adminStrings.audit;

type AuditRecordsProps = { records: AuditRecord[]; showWhat?: boolean };

/** Records as a table, newest first: when, who, what was done, the fields changed, from where. */
export function AuditRecords({ records, showWhat = true }: AuditRecordsProps) {
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={text.table}>
        <TableHead>
          <TableRow>
            <TableCell>{text.when}</TableCell>
            <TableCell>{text.who}</TableCell>
            {showWhat && <TableCell>{text.what}</TableCell>}
            <TableCell>{text.changes}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{text.from}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {records.map((record) => (
            <TableRow key={`${record.service}:${record.id}`} data-testid="audit-record">
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatMoment(record.time)}</TableCell>
              <TableCell sx={{ minWidth: 120 }}>{actorLabel(record)}</TableCell>
              {showWhat && <TableCell sx={{ minWidth: 160 }}>{deedLabel(record)}</TableCell>}
              {/* A long value with no space (a hash, a file name) wraps
                  anywhere rather than squeeze the other columns to a letter. */}
              <TableCell sx={{ minWidth: 240, overflowWrap: 'anywhere' }}>
                {record.changes.length === 0 && !showWhat
                  ? (text.actions[record.action] ?? record.action)
                  : record.changes.map((change) => (
                      <Typography key={change.field} variant="body2">
                        {changeLabel(record.entity, change)}
                      </Typography>
                    ))}
              </TableCell>
              <TableCell sx={{ minWidth: 120, overflowWrap: 'anywhere' }}>
                <Typography variant="body2">{record.address}</Typography>
                {record.requestId && (
                  <Typography variant="caption" sx={{ color: 'text.secondary' }}>
                    {text.requestId(record.requestId)}
                  </Typography>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
