import BuildOutlined from '@mui/icons-material/BuildOutlined';
import {
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
import { useParams, useSearchParams } from 'react-router';

import { CreateDialog } from '@/components/create-dialog';
import { Loading, LoadError } from '@/components/load-state';
import { MaintenanceKind, type Environment } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate, today } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';
import { useFormState, type FieldErrors } from '@/lib/use-form-state';

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

const requiredKeys = ['date', 'performedBy', 'description'] as const;
type RequiredKey = (typeof requiredKeys)[number];

/** One logbook entry; exported for its test. */
export function MaintenanceForm({
  disabled,
  onSubmit,
}: {
  disabled: boolean;
  onSubmit: (values: EntryValues) => void;
}) {
  const { values, set, submit, textField, formRef } = useFormState({
    initial: {
      date: today(),
      kind: MaintenanceKind.PREVENTIVE,
      performedBy: '',
      description: '',
      result: '',
      nextDue: '',
    },
    validate: (typed: EntryValues): FieldErrors<RequiredKey> =>
      Object.fromEntries(
        requiredKeys.filter((key) => typed[key].trim() === '').map((key) => [key, maintenance.required]),
      ),
    live: true,
  });

  return (
    <Stack
      component="form"
      ref={formRef}
      id={formId}
      noValidate
      spacing={2.5}
      onSubmit={submit((typed) =>
        onSubmit({
          ...typed,
          performedBy: typed.performedBy.trim(),
          description: typed.description.trim(),
          result: typed.result.trim(),
        }),
      )}
    >
      <TextField
        type="date"
        label={maintenance.date}
        {...textField('date')}
        required
        disabled={disabled}
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
      <TextField label={maintenance.performedBy} {...textField('performedBy')} required disabled={disabled} />
      <TextField
        label={maintenance.description}
        {...textField('description')}
        required
        disabled={disabled}
        multiline
        minRows={3}
      />
      <TextField label={maintenance.result} {...textField('result')} disabled={disabled} />
      <TextField
        type="date"
        label={maintenance.nextDue}
        {...textField('nextDue')}
        disabled={disabled}
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
          <CreateDialog
            formId={formId}
            text={{
              create: maintenance.add,
              createTitle: maintenance.addTitle(unit.inventoryNumber),
              created: maintenance.created,
            }}
            submitLabel={strings.common.save}
            failed={errorMessage}
            closeDelayMs={1000}
            create={(values: EntryValues) => create.mutateAsync({ environmentId: unit.id, ...values })}
            button={{ startIcon: <BuildOutlined />, sx: { ml: { sm: 'auto !important' } } }}
          >
            {(form) => <MaintenanceForm disabled={form.disabled} onSubmit={form.onSubmit} />}
          </CreateDialog>
        )}
      </Stack>
      <Logbook unit={unit} />
    </Stack>
  );
}
