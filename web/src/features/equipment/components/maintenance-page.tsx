import BuildOutlined from '@mui/icons-material/BuildOutlined';
import {
  Button,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';

import { FormDialog } from '@/components/form-dialog';
import { Loading, LoadError } from '@/components/load-state';
import { MaintenanceKind, type Environment } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate, today } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';
import { useDraftState } from '@/lib/unsaved';

import { useCreateMaintenanceEntry, useMaintenanceEntries, useModel } from '../api/equipment-queries';
import { MaintenanceMark } from './maintenance-mark';

const { maintenance } = equipmentStrings;
const formId = 'maintenance-entry';
const collator = new Intl.Collator('ru-RU', { numeric: true });

const kinds = [
  MaintenanceKind.PREVENTIVE,
  MaintenanceKind.CORRECTIVE,
  MaintenanceKind.INSPECTION,
  MaintenanceKind.CALIBRATION,
] as const;
const kindLabel = (kind: MaintenanceKind) =>
  kind === MaintenanceKind.UNSPECIFIED ? '' : maintenance.kinds[kind];

type EntryValues = {
  date: string;
  kind: MaintenanceKind;
  performedBy: string;
  description: string;
  result: string;
  nextDue: string;
};

/** One logbook entry; exported for its test. */
export function MaintenanceForm({
  disabled,
  onSubmit,
}: {
  disabled: boolean;
  onSubmit: (values: EntryValues) => void;
}) {
  const [values, setValues] = useDraftState<EntryValues>({
    date: today(),
    kind: MaintenanceKind.PREVENTIVE,
    performedBy: '',
    description: '',
    result: '',
    nextDue: '',
  });
  const [tried, setTried] = useState(false);
  const set = <K extends keyof EntryValues>(key: K, value: EntryValues[K]) =>
    setValues((current) => ({ ...current, [key]: value }));
  const missing = (key: 'date' | 'performedBy' | 'description') => tried && values[key].trim() === '';
  const text = (key: 'date' | 'performedBy' | 'description' | 'result' | 'nextDue') => ({
    value: values[key],
    onChange: (event: { target: { value: string } }) => set(key, event.target.value),
    disabled,
  });
  const required = (key: 'date' | 'performedBy' | 'description') => ({
    ...text(key),
    required: true,
    error: missing(key),
    helperText: missing(key) ? maintenance.required : undefined,
  });

  return (
    <Stack
      component="form"
      id={formId}
      noValidate
      spacing={2.5}
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        const trimmed = {
          ...values,
          performedBy: values.performedBy.trim(),
          description: values.description.trim(),
          result: values.result.trim(),
        };
        if (trimmed.date === '' || trimmed.performedBy === '' || trimmed.description === '') return;
        onSubmit(trimmed);
      }}
    >
      <TextField
        type="date"
        label={maintenance.date}
        {...required('date')}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        select
        label={maintenance.kind}
        // MUI hands back the option's value as given; the kinds go in as strings to match.
        value={String(values.kind)}
        onChange={(event) =>
          set('kind', kinds.find((kind) => String(kind) === event.target.value) ?? values.kind)
        }
        disabled={disabled}
      >
        {kinds.map((kind) => (
          <MenuItem key={kind} value={String(kind)}>
            {kindLabel(kind)}
          </MenuItem>
        ))}
      </TextField>
      <TextField label={maintenance.performedBy} {...required('performedBy')} />
      <TextField label={maintenance.description} multiline minRows={3} {...required('description')} />
      <TextField label={maintenance.result} {...text('result')} />
      <TextField
        type="date"
        label={maintenance.nextDue}
        {...text('nextDue')}
        slotProps={{ inputLabel: { shrink: true } }}
      />
    </Stack>
  );
}

function Logbook({ unit }: { unit: Environment }) {
  const query = useMaintenanceEntries(unit.id);
  if (query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  if (query.data.entries.length === 0) {
    return <Typography sx={{ color: 'text.secondary' }}>{maintenance.empty}</Typography>;
  }
  return (
    <Paper variant="outlined">
      <List disablePadding aria-label={maintenance.logbookOf(unit.inventoryNumber)}>
        {query.data.entries.map((entry) => (
          <ListItem key={entry.id} divider alignItems="flex-start">
            <ListItemIcon sx={{ minWidth: 40, mt: 0.5 }}>
              <BuildOutlined color="primary" />
            </ListItemIcon>
            <ListItemText
              primary={`${formatDate(entry.date)} · ${kindLabel(entry.kind)}`}
              secondary={
                <>
                  <Typography
                    component="span"
                    sx={{ display: 'block', color: 'text.primary', whiteSpace: 'pre-line' }}
                  >
                    {entry.description}
                  </Typography>
                  {entry.result && (
                    <Typography component="span" sx={{ display: 'block', color: 'text.primary' }}>
                      {maintenance.resultOf(entry.result)}
                    </Typography>
                  )}
                  <Typography component="span" variant="body2" sx={{ display: 'block' }}>
                    {[
                      entry.performedBy,
                      entry.nextDue && maintenance.next(formatDate(entry.nextDue)),
                      entry.author,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
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

/** The maintenance logbook of a model's units in the department, one unit at a time. */
export function MaintenanceLogbookPage() {
  const params = useParams();
  const departmentId = parseId(params.departmentId);
  const model = useModel(parseId(params.id));
  const [search, setSearch] = useSearchParams();
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const create = useCreateMaintenanceEntry();
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);

  if (model.isError) return <LoadError />;
  if (model.isPending) return <Loading />;
  const units = (model.data.environmentModel?.environments ?? [])
    .filter((unit) => unit.departmentId === departmentId)
    .sort((a, b) => collator.compare(a.inventoryNumber, b.inventoryNumber));
  if (units.length === 0)
    return <Typography sx={{ color: 'text.secondary' }}>{equipmentStrings.unitsEmpty}</Typography>;
  const chosenId = parseId(search.get('unit') ?? undefined);
  const unit = units.find((candidate) => candidate.id === chosenId) ?? units[0];
  if (!unit) return null;

  return (
    <Stack spacing={2}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: { sm: 'center' } }}>
        <TextField
          select
          size="small"
          label={maintenance.unit}
          value={String(unit.id)}
          onChange={(event) => setSearch({ unit: event.target.value }, { replace: true })}
          sx={{ minWidth: 240 }}
        >
          {units.map((candidate) => (
            <MenuItem key={candidate.id} value={String(candidate.id)}>
              {equipmentStrings.inventoryNumber(candidate.inventoryNumber)}
            </MenuItem>
          ))}
        </TextField>
        <MaintenanceMark unit={unit} />
        {editor && (
          <Button
            variant="contained"
            startIcon={<BuildOutlined />}
            onClick={() => setOpen(true)}
            sx={{ ml: { sm: 'auto !important' } }}
          >
            {maintenance.add}
          </Button>
        )}
      </Stack>
      <Logbook unit={unit} />
      <FormDialog
        open={open}
        title={maintenance.addTitle(unit.inventoryNumber)}
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
        <MaintenanceForm
          key={formKey}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { environmentId: unit.id, ...values },
              {
                onSuccess: () => notify.success(maintenance.created),
                onError: (error) => notify.error(errorMessage(error)),
              },
            )
          }
        />
      </FormDialog>
    </Stack>
  );
}
