import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  List,
  ListItem,
  Paper,
  Stack,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import { formatDayAndTime } from '@/lib/dates';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';
import { type DiffPart, wordDiff } from '@/lib/text-diff';

import { Loading, LoadError } from './load-state';
import { PageHeader } from './page-header';

const text = strings.revisions;

/** One saved version as the services list them (an article's, a test's, an instruction's). */
export type RevisionRow = {
  id: bigint;
  authorId: bigint;
  authorName: string;
  createdAt?: Timestamp;
  size: bigint;
  /** The version a restore brought back (0 for a save of its own) and when it was saved. */
  restoredFromId: bigint;
  restoredFromCreatedAt?: Timestamp;
};

type RevisionHistoryProps = {
  /** The item's revisions, newest first (a connect-query result fits). */
  load: { data?: { revisions: RevisionRow[] }; isPending: boolean; isError: boolean };
  /** What the list says of a revision's size (characters, questions). */
  size: (size: number) => string;
  /** One revision as text for the comparison: stored HTML read as text, a test written out. */
  textOf: (revisionId: bigint) => Promise<string>;
  /** Restores one revision (a mutation's `mutateAsync`) and has the page load its item again. */
  restore: (revisionId: bigint) => Promise<unknown>;
  /** Names the item in the query cache, so two items' texts never mix. */
  cacheKey: readonly unknown[];
};

const at = (timestamp: Timestamp | undefined) =>
  timestamp ? formatDayAndTime(timestampDate(timestamp)) : '';

const when = (revision: RevisionRow) => at(revision.createdAt);

/** «восстановлено из версии от …» for a version a restore wrote. */
const restoredFrom = (revision: RevisionRow) =>
  revision.restoredFromId === 0n ? undefined : text.restoredFrom(at(revision.restoredFromCreatedAt));

/**
 * «История изменений» of an article, an instruction or a test (issue 25): who saved each
 * version and when, any two compared word by word as text (stored HTML is never rendered
 * here), and «Восстановить» after a confirmation — a restore is itself a new version.
 */
export function RevisionHistory({ load, size, textOf, restore, cacheKey }: RevisionHistoryProps) {
  const [picked, setPicked] = useState<bigint[]>([]);
  const [compared, setCompared] = useState<[RevisionRow, RevisionRow] | undefined>(undefined);
  const [restoring, setRestoring] = useState<RevisionRow | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const revisions = load.data?.revisions ?? [];

  const pick = (id: bigint, on: boolean) =>
    // A third pick lets the earliest of the two go.
    setPicked((current) =>
      on
        ? [...current.filter((other) => other !== id), id].slice(-2)
        : current.filter((other) => other !== id),
    );

  const compare = () => {
    const chosen = revisions.filter((revision) => picked.includes(revision.id));
    const [newer, older] = chosen;
    if (older && newer) setCompared([older, newer]);
  };

  const confirmRestore = () => {
    if (!restoring) return;
    setBusy(true);
    restore(restoring.id)
      .then(
        () => {
          notify.success(text.restored);
          setPicked([]);
          setCompared(undefined);
        },
        () => notify.error(text.restoreFailed),
      )
      .finally(() => {
        setBusy(false);
        setRestoring(undefined);
      });
  };

  return (
    <Paper
      variant="outlined"
      sx={{ p: { xs: 2, sm: 3 } }}
      component="section"
      aria-labelledby="revisions-title"
    >
      <PageHeader
        title={<span id="revisions-title">{text.title}</span>}
        action={
          <Button variant="outlined" disabled={picked.length !== 2} onClick={compare}>
            {text.compare}
          </Button>
        }
      />
      {load.isError ? (
        <LoadError message={text.loadFailed} />
      ) : load.isPending ? (
        <Loading />
      ) : revisions.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{text.empty}</Typography>
      ) : (
        <>
          <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
            {text.hint}
          </Typography>
          <List disablePadding aria-label={text.title}>
            {revisions.map((revision, index) => (
              <ListItem
                key={revision.id}
                divider
                disableGutters
                secondaryAction={
                  index > 0 && (
                    <Button size="small" onClick={() => setRestoring(revision)}>
                      {text.restore}
                    </Button>
                  )
                }
              >
                <Checkbox
                  edge="start"
                  checked={picked.includes(revision.id)}
                  onChange={(event) => pick(revision.id, event.target.checked)}
                  slotProps={{ input: { 'aria-label': text.pick(when(revision)) } }}
                />
                <Stack sx={{ minWidth: 0, pr: 14 }}>
                  <Typography sx={{ overflowWrap: 'anywhere' }}>
                    {revision.authorId === 0n ? text.unknownAuthor : revision.authorName}
                  </Typography>
                  <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                    {[
                      when(revision),
                      size(Number(revision.size)),
                      restoredFrom(revision),
                      index === 0 ? text.current : undefined,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  </Typography>
                </Stack>
              </ListItem>
            ))}
          </List>
        </>
      )}
      {compared && (
        <Comparison
          older={compared[0]}
          newer={compared[1]}
          textOf={textOf}
          cacheKey={cacheKey}
          onHide={() => setCompared(undefined)}
        />
      )}
      <Dialog
        open={restoring !== undefined}
        onClose={() => !busy && setRestoring(undefined)}
        aria-labelledby="restore-title"
        aria-describedby="restore-text"
      >
        <DialogTitle id="restore-title">{text.restoreTitle}</DialogTitle>
        <DialogContent>
          <DialogContentText id="restore-text">
            {restoring && text.restoreText(when(restoring))}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRestoring(undefined)} disabled={busy} autoFocus>
            {text.cancel}
          </Button>
          <Button variant="contained" onClick={confirmRestore} loading={busy}>
            {text.restore}
          </Button>
        </DialogActions>
      </Dialog>
    </Paper>
  );
}

type ComparisonProps = {
  older: RevisionRow;
  newer: RevisionRow;
  textOf: (revisionId: bigint) => Promise<string>;
  cacheKey: readonly unknown[];
  onHide: () => void;
};

/** The words the newer of two versions put in and took out, inline in the newer's order. */
function Comparison({ older, newer, textOf, cacheKey, onHide }: ComparisonProps) {
  // A saved version never changes: its comparison is kept as long as the page lives.
  const diff = useQuery({
    queryKey: ['revision-diff', ...cacheKey, older.id.toString(), newer.id.toString()],
    queryFn: async () => {
      const [before, after] = await Promise.all([textOf(older.id), textOf(newer.id)]);
      return wordDiff(before, after);
    },
    staleTime: Infinity,
  });
  return (
    <Box component="section" aria-labelledby="comparison-title" sx={{ mt: 3 }}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' }, mb: 1 }}
      >
        <Typography id="comparison-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {text.comparing(when(older), when(newer))}
        </Typography>
        <Button size="small" onClick={onHide}>
          {text.hideComparison}
        </Button>
      </Stack>
      {diff.isError ? (
        <Alert severity="error">{text.compareFailed}</Alert>
      ) : diff.isPending ? (
        <Loading />
      ) : (
        <DiffText parts={diff.data} />
      )}
    </Box>
  );
}

function DiffText({ parts }: { parts: DiffPart[] }) {
  if (parts.every((part) => part.kind === 'same')) {
    return <Typography sx={{ color: 'text.secondary' }}>{text.noChanges}</Typography>;
  }
  return (
    <>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
        {text.legend}
      </Typography>
      <Box
        data-testid="revision-diff"
        sx={{
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
          p: 2,
          lineHeight: 1.7,
          '& ins': { bgcolor: '#d8f3dc', color: '#0f3d1c', textDecoration: 'none', borderRadius: 0.5 },
          '& del': {
            bgcolor: '#fde0e0',
            color: '#6b1111',
            textDecoration: 'line-through',
            borderRadius: 0.5,
          },
          // A word taken out and the one put in its place stay apart.
          '& del + ins': { ml: 0.5 },
        }}
      >
        {parts.map((part, index) =>
          part.kind === 'added' ? (
            <ins key={index} title={text.added}>
              {part.text}
            </ins>
          ) : part.kind === 'removed' ? (
            <del key={index} title={text.removed}>
              {part.text}
            </del>
          ) : (
            <span key={index}>{part.text}</span>
          ),
        )}
      </Box>
    </>
  );
}
