import AddIcon from '@mui/icons-material/Add';
import EditNoteOutlined from '@mui/icons-material/EditNoteOutlined';
import {
  Button,
  Chip,
  List,
  ListItem,
  ListItemText,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';

import { FormDialog } from '@/components/form-dialog';
import { Loading, LoadError } from '@/components/load-state';
import type { Journal } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate, today } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import {
  useCreateJournal,
  useCreateJournalEntry,
  useJournalEntries,
  useJournals,
} from '../api/equipment-queries';

const { journal: text } = equipmentStrings;
const collator = new Intl.Collator('ru-RU');

type Required = { value: string; missing: boolean };

/** A text field the form requires: its red message once a submit found it empty. */
const requiredProps = ({ value, missing }: Required, message: string) => ({
  value,
  required: true,
  error: missing,
  helperText: missing ? message : undefined,
});

function CreateJournalDialog({ modelId, onCreated }: { modelId: bigint; onCreated: (id: bigint) => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [tried, setTried] = useState(false);
  const create = useCreateJournal();
  const formId = 'create-journal';

  return (
    <>
      <Button startIcon={<AddIcon />} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={1000}
        dirty={name !== ''}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setName('');
          setTried(false);
          create.reset();
        }}
      >
        <Stack
          component="form"
          id={formId}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setTried(true);
            if (name.trim() === '') return;
            create.mutate(
              { environmentModelId: modelId, name: name.trim() },
              {
                onSuccess: (created) => {
                  notify.success(text.created);
                  if (created.journal) onCreated(created.journal.id);
                },
                onError: (error) => notify.error(errorMessage(error)),
              },
            );
          }}
        >
          <TextField
            label={text.name}
            {...requiredProps({ value: name, missing: tried && name.trim() === '' }, text.nameRequired)}
            helperText={tried && name.trim() === '' ? text.nameRequired : text.nameHint}
            onChange={(event) => setName(event.target.value)}
            disabled={create.isPending || create.isSuccess}
            fullWidth
          />
        </Stack>
      </FormDialog>
    </>
  );
}

function AddEntryDialog({ journal }: { journal: Journal }) {
  const [open, setOpen] = useState(false);
  const [date, setDate] = useState(today());
  const [entry, setEntry] = useState('');
  const [tried, setTried] = useState(false);
  const create = useCreateJournalEntry();
  const formId = 'journal-entry';
  const disabled = create.isPending || create.isSuccess;

  return (
    <>
      <Button variant="contained" startIcon={<EditNoteOutlined />} onClick={() => setOpen(true)}>
        {text.add}
      </Button>
      <FormDialog
        open={open}
        title={text.addTitle(journal.name)}
        formId={formId}
        submitLabel={strings.common.save}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={1000}
        dirty={entry !== ''}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setEntry('');
          setTried(false);
          create.reset();
        }}
      >
        <Stack
          component="form"
          id={formId}
          noValidate
          spacing={2.5}
          onSubmit={(event) => {
            event.preventDefault();
            setTried(true);
            if (date === '' || entry.trim() === '') return;
            create.mutate(
              { journalId: journal.id, date, text: entry.trim() },
              {
                onSuccess: () => notify.success(text.entryCreated),
                onError: (error) => notify.error(errorMessage(error)),
              },
            );
          }}
        >
          <TextField
            type="date"
            label={text.date}
            {...requiredProps({ value: date, missing: tried && date === '' }, text.required)}
            onChange={(event) => setDate(event.target.value)}
            disabled={disabled}
            slotProps={{ inputLabel: { shrink: true } }}
          />
          <TextField
            label={text.text}
            {...requiredProps({ value: entry, missing: tried && entry.trim() === '' }, text.required)}
            onChange={(event) => setEntry(event.target.value)}
            multiline
            minRows={3}
            disabled={disabled}
          />
        </Stack>
      </FormDialog>
    </>
  );
}

function JournalEntries({ journal }: { journal: Journal }) {
  const query = useJournalEntries(journal.id);
  if (query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  if (query.data.entries.length === 0) {
    return <Typography sx={{ color: 'text.secondary' }}>{text.empty}</Typography>;
  }
  return (
    <Paper variant="outlined">
      <List disablePadding aria-label={journal.name}>
        {query.data.entries.map((entry) => (
          <ListItem key={entry.id} divider alignItems="flex-start">
            <ListItemText
              primary={formatDate(entry.date)}
              secondary={
                <>
                  <Typography
                    component="span"
                    sx={{ display: 'block', color: 'text.primary', whiteSpace: 'pre-line' }}
                  >
                    {entry.text}
                  </Typography>
                  <Typography component="span" variant="body2">
                    {entry.author}
                  </Typography>
                </>
              }
              slotProps={{ primary: { sx: { fontWeight: 500 } } }}
            />
          </ListItem>
        ))}
      </List>
    </Paper>
  );
}

/** The named journals of a model (disinfection, usage…), one open at a time. */
export function JournalPage() {
  const modelId = parseId(useParams().id);
  const query = useJournals(modelId);
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const [search, setSearch] = useSearchParams();
  const choose = (id: bigint) => setSearch({ journal: String(id) }, { replace: true });

  if (modelId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const journals = [...query.data.journals].sort((a, b) => collator.compare(a.name, b.name));
  const chosenId = parseId(search.get('journal') ?? undefined);
  const journal = journals.find((candidate) => candidate.id === chosenId) ?? journals[0];

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ justifyContent: 'space-between' }}>
        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ flexWrap: 'wrap' }}
          role="group"
          aria-label={text.listLabel}
        >
          {journals.map((candidate) => (
            <Chip
              key={candidate.id}
              label={candidate.name}
              color={candidate.id === journal?.id ? 'primary' : 'default'}
              aria-pressed={candidate.id === journal?.id}
              onClick={() => choose(candidate.id)}
            />
          ))}
        </Stack>
        {editor && (
          <Stack direction="row" spacing={1} sx={{ flexShrink: 0 }}>
            <CreateJournalDialog modelId={modelId} onCreated={choose} />
            {journal && <AddEntryDialog key={journal.id} journal={journal} />}
          </Stack>
        )}
      </Stack>
      {journal ? (
        <JournalEntries journal={journal} />
      ) : (
        <Typography sx={{ color: 'text.secondary' }}>{text.none}</Typography>
      )}
    </Stack>
  );
}
