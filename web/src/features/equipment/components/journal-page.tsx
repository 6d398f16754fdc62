import AddIcon from '@mui/icons-material/Add';
import EditNoteOutlined from '@mui/icons-material/EditNoteOutlined';
import { Chip, List, ListItem, ListItemText, Paper, Stack, TextField, Typography } from '@mui/material';
import { useParams, useSearchParams } from 'react-router';

import { CreateDialog, type FormProps } from '@/components/create-dialog';
import { Loading, LoadError } from '@/components/load-state';
import type { Journal } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate, today } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';
import { useFormState } from '@/lib/use-form-state';

import {
  useCreateJournal,
  useCreateJournalEntry,
  useJournalEntries,
  useJournals,
} from '../api/equipment-queries';

const { journal: text } = equipmentStrings;
const collator = new Intl.Collator('ru-RU');

type NameValues = { name: string };

function JournalNameForm({ id, disabled, onSubmit }: FormProps<NameValues>) {
  const { submit, textField, formRef } = useFormState({
    initial: { name: '' },
    validate: ({ name }: NameValues) => ({ name: name.trim() === '' ? text.nameRequired : undefined }),
    live: true,
  });
  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      onSubmit={submit(({ name }) => onSubmit({ name: name.trim() }))}
    >
      <TextField
        label={text.name}
        {...textField('name', text.nameHint)}
        required
        disabled={disabled}
        fullWidth
      />
    </Stack>
  );
}

function CreateJournalDialog({ modelId, onCreated }: { modelId: bigint; onCreated: (id: bigint) => void }) {
  const create = useCreateJournal();
  return (
    <CreateDialog
      formId="create-journal"
      text={text}
      failed={errorMessage}
      closeDelayMs={1000}
      create={({ name }: NameValues) =>
        create.mutateAsync({ environmentModelId: modelId, name }).then((created) => {
          if (created.journal) onCreated(created.journal.id);
        })
      }
      button={{ variant: 'text', startIcon: <AddIcon /> }}
    >
      {(form) => <JournalNameForm {...form} />}
    </CreateDialog>
  );
}

type EntryValues = { date: string; entry: string };

function JournalEntryForm({ id, disabled, onSubmit }: FormProps<EntryValues>) {
  const { submit, textField, formRef } = useFormState({
    initial: { date: today(), entry: '' },
    validate: ({ date, entry }: EntryValues) => ({
      date: date === '' ? text.required : undefined,
      entry: entry.trim() === '' ? text.required : undefined,
    }),
    live: true,
  });
  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2.5}
      onSubmit={submit(({ date, entry }) => onSubmit({ date, entry: entry.trim() }))}
    >
      <TextField
        type="date"
        label={text.date}
        {...textField('date')}
        required
        disabled={disabled}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        label={text.text}
        {...textField('entry')}
        required
        multiline
        minRows={3}
        disabled={disabled}
      />
    </Stack>
  );
}

function AddEntryDialog({ journal }: { journal: Journal }) {
  const create = useCreateJournalEntry();
  return (
    <CreateDialog
      formId="journal-entry"
      text={{ create: text.add, createTitle: text.addTitle(journal.name), created: text.entryCreated }}
      submitLabel={strings.common.save}
      failed={errorMessage}
      closeDelayMs={1000}
      create={({ date, entry }: EntryValues) =>
        create.mutateAsync({ journalId: journal.id, date, text: entry })
      }
      button={{ startIcon: <EditNoteOutlined /> }}
    >
      {(form) => <JournalEntryForm {...form} />}
    </CreateDialog>
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
