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
import { useParams } from 'react-router';

import { FormDialog } from '@/components/form-dialog';
import { Loading, LoadError } from '@/components/load-state';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { useCreateMaintenanceEntry, useMaintenanceEntries, useModel } from '../api/equipment-queries';
import { unitsIn } from '../utils/department-maintenance';
import { formatDate, today } from '../utils/maintenance';

const { maintenance } = strings.equipment;
const formId = 'maintenance-entry';

type Unit = { id: bigint; inventoryNumber: string };

function MaintenanceForm({
  units,
  disabled,
  onSubmit,
}: {
  units: Unit[];
  disabled: boolean;
  onSubmit: (values: {
    environmentId: bigint;
    date: string;
    performedBy: string;
    description: string;
    nextDue: string;
  }) => void;
}) {
  const [environmentId, setEnvironmentId] = useState(units[0]?.id ?? 0n);
  const [date, setDate] = useState(today());
  const [performedBy, setPerformedBy] = useState('');
  const [description, setDescription] = useState('');
  const [nextDue, setNextDue] = useState('');
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
        if ([date, performedBy, description].some((value) => value.trim() === '')) return;
        onSubmit({
          environmentId,
          date,
          performedBy: performedBy.trim(),
          description: description.trim(),
          nextDue,
        });
      }}
    >
      <TextField
        select
        label={maintenance.unit}
        value={String(environmentId)}
        onChange={(event) => setEnvironmentId(BigInt(event.target.value))}
        disabled={disabled}
      >
        {units.map((unit) => (
          <MenuItem key={unit.id} value={String(unit.id)}>
            {maintenance.entryUnit(unit.inventoryNumber)}
          </MenuItem>
        ))}
        <MenuItem value="0">{maintenance.wholeModel}</MenuItem>
      </TextField>
      <TextField
        type="date"
        label={maintenance.date}
        value={date}
        onChange={(event) => setDate(event.target.value)}
        required
        error={missing(date)}
        helperText={missing(date) ? maintenance.required : undefined}
        disabled={disabled}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        label={maintenance.performedBy}
        value={performedBy}
        onChange={(event) => setPerformedBy(event.target.value)}
        required
        error={missing(performedBy)}
        helperText={missing(performedBy) ? maintenance.required : undefined}
        disabled={disabled}
      />
      <TextField
        label={maintenance.description}
        value={description}
        onChange={(event) => setDescription(event.target.value)}
        required
        multiline
        minRows={3}
        error={missing(description)}
        helperText={missing(description) ? maintenance.required : undefined}
        disabled={disabled}
      />
      <TextField
        type="date"
        label={maintenance.nextDue}
        value={nextDue}
        onChange={(event) => setNextDue(event.target.value)}
        disabled={disabled}
        slotProps={{ inputLabel: { shrink: true } }}
      />
    </Stack>
  );
}

/** The maintenance logbook of a model: entries newest first, and a new entry for editors. */
export function MaintenanceLogbookPage() {
  const params = useParams();
  const modelId = parseId(params.id);
  const departmentId = parseId(params.departmentId);
  const query = useMaintenanceEntries(modelId);
  const model = useModel(modelId).data?.environmentModel;
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const create = useCreateMaintenanceEntry();
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);

  if (modelId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const units = model && departmentId !== undefined ? unitsIn(model, departmentId) : [];
  const inventory = new Map((model?.environments ?? []).map((unit) => [unit.id, unit.inventoryNumber]));
  // The logbook of this department's units and of the model as a whole.
  const shown = new Set(units.map((unit) => unit.id));
  const entries = query.data.entries.filter(
    (entry) => entry.environmentId === 0n || shown.has(entry.environmentId),
  );

  return (
    <Stack spacing={2}>
      {editor && (
        <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
          <Button variant="contained" startIcon={<BuildOutlined />} onClick={() => setOpen(true)}>
            {maintenance.add}
          </Button>
        </Stack>
      )}
      {entries.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{maintenance.empty}</Typography>
      ) : (
        <Paper variant="outlined">
          <List disablePadding>
            {entries.map((entry) => (
              <ListItem key={entry.id} divider alignItems="flex-start">
                <ListItemIcon sx={{ minWidth: 40, mt: 0.5 }}>
                  <BuildOutlined color="primary" />
                </ListItemIcon>
                <ListItemText
                  primary={`${formatDate(entry.date)} · ${
                    entry.environmentId === 0n
                      ? maintenance.wholeModel
                      : maintenance.entryUnit(
                          inventory.get(entry.environmentId) ?? String(entry.environmentId),
                        )
                  }`}
                  secondary={
                    <>
                      <Typography
                        component="span"
                        sx={{ display: 'block', color: 'text.primary', whiteSpace: 'pre-line' }}
                      >
                        {entry.description}
                      </Typography>
                      <Typography component="span" variant="body2" sx={{ display: 'block' }}>
                        {entry.performedBy}
                        {entry.nextDue && ` · ${maintenance.next(formatDate(entry.nextDue))}`}
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
        title={maintenance.addTitle}
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
          units={units}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { environmentModelId: modelId, ...values },
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
