import EditNoteOutlined from '@mui/icons-material/EditNoteOutlined';
import {
  Autocomplete,
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
import { useParams } from 'react-router';

import { FormDialog } from '@/components/form-dialog';
import { Loading, LoadError } from '@/components/load-state';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateJournalEntry, useJournalEntries } from '../api/equipment-queries';
import { formatDate, today } from '../utils/maintenance';

const { journal } = strings.equipment;
const formId = 'journal-entry';
const collator = new Intl.Collator('ru-RU');

type JournalValues = { journal: string; date: string; text: string };

function JournalForm({
  journals,
  initialJournal,
  disabled,
  onSubmit,
}: {
  journals: string[];
  initialJournal: string;
  disabled: boolean;
  onSubmit: (values: JournalValues) => void;
}) {
  const [name, setName] = useState(initialJournal);
  const [date, setDate] = useState(today());
  const [text, setText] = useState('');
  const [tried, setTried] = useState(false);
  const missing = (value: string) => tried && value.trim() === '';

  return (
    <Stack
      component="form"
      id={formId}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if ([name, date, text].some((value) => value.trim() === '')) return;
        onSubmit({ journal: name.trim(), date, text: text.trim() });
      }}
    >
      <Autocomplete
        freeSolo
        options={journals}
        inputValue={name}
        onInputChange={(_, value) => setName(value)}
        disabled={disabled}
        renderInput={(params) => (
          <TextField
            {...params}
            label={journal.journal}
            required
            error={missing(name)}
            helperText={missing(name) ? journal.required : journal.journalHint}
          />
        )}
      />
      <TextField
        type="date"
        label={journal.date}
        value={date}
        onChange={(event) => setDate(event.target.value)}
        required
        error={missing(date)}
        helperText={missing(date) ? journal.required : undefined}
        disabled={disabled}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        label={journal.text}
        value={text}
        onChange={(event) => setText(event.target.value)}
        required
        multiline
        minRows={3}
        error={missing(text)}
        helperText={missing(text) ? journal.required : undefined}
        disabled={disabled}
      />
    </Stack>
  );
}

/** The journals of a model (disinfection, usage…): entries newest first; any signed-in user writes. */
export function JournalPage() {
  const modelId = parseId(useParams().id);
  const query = useJournalEntries(modelId);
  const create = useCreateJournalEntry();
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);

  if (modelId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const journals = [...new Set(query.data.entries.map((entry) => entry.journal))].sort(collator.compare);
  const entries = query.data.entries.filter((entry) => chosen === undefined || entry.journal === chosen);

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ justifyContent: 'space-between' }}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          {journals.length > 1 && (
            <Chip
              label={journal.all}
              color={chosen === undefined ? 'primary' : 'default'}
              onClick={() => setChosen(undefined)}
            />
          )}
          {journals.map((name) => (
            <Chip
              key={name}
              label={name}
              color={chosen === name ? 'primary' : 'default'}
              onClick={() => setChosen(name)}
            />
          ))}
        </Stack>
        <Button
          variant="contained"
          startIcon={<EditNoteOutlined />}
          onClick={() => setOpen(true)}
          sx={{ flexShrink: 0 }}
        >
          {journal.add}
        </Button>
      </Stack>
      {entries.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{journal.empty}</Typography>
      ) : (
        <Paper variant="outlined">
          <List disablePadding>
            {entries.map((entry) => (
              <ListItem key={entry.id} divider alignItems="flex-start">
                <ListItemText
                  primary={`${formatDate(entry.date)} · ${entry.journal}`}
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
      )}
      <FormDialog
        open={open}
        title={journal.addTitle}
        formId={formId}
        submitLabel={strings.common.save}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={1000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <JournalForm
          key={formKey}
          journals={journals}
          initialJournal={chosen ?? ''}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { environmentModelId: modelId, ...values },
              {
                onSuccess: () => notify.success(journal.created),
                onError: (error) => notify.error(errorMessage(error)),
              },
            )
          }
        />
      </FormDialog>
    </Stack>
  );
}
