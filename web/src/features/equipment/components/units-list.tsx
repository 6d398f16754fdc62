import { Link, List, ListItem, ListItemText, Paper, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';

import type { EnvironmentModel } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { Right, useHasRight } from '@/lib/session/rights';

import { unitPage } from '../utils/pages';
import { CreateUnitDialog } from './create-unit-dialog';
import { MaintenanceMark } from './maintenance-mark';

const collator = new Intl.Collator('ru-RU', { numeric: true });

/**
 * Spec §2: the department's units of a model by inventory number, each a link to the unit's own
 * page (issue 37: spec §2's link to /home in a new tab led nowhere), with its maintenance mark
 * beside it.
 */
export function UnitsList({
  model,
  departmentId,
}: {
  model: EnvironmentModel | undefined;
  departmentId: bigint;
}) {
  const editor = useHasRight(Right.EquipmentEditing) === true;
  const units = model
    ? model.environments
        .filter((unit) => unit.departmentId === departmentId)
        .sort((a, b) => collator.compare(a.inventoryNumber, b.inventoryNumber))
    : [];

  return (
    <Paper
      variant="outlined"
      component="section"
      aria-labelledby="units-title"
      sx={{ p: 2, alignSelf: 'start' }}
    >
      <Stack spacing={1.5}>
        <Typography id="units-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {equipmentStrings.units}
        </Typography>
        {model && units.length === 0 && (
          <Typography sx={{ color: 'text.secondary' }}>{equipmentStrings.unitsEmpty}</Typography>
        )}
        {units.length > 0 && (
          <List disablePadding dense>
            {units.map((unit) => (
              <ListItem key={unit.id} divider disableGutters sx={{ flexWrap: 'wrap', columnGap: 1 }}>
                <ListItemText
                  primary={
                    <Link
                      component={RouterLink}
                      to={unitPage(departmentId, unit.environmentModelId, unit.id)}
                      underline="hover"
                    >
                      {equipmentStrings.inventoryNumber(unit.inventoryNumber)}
                    </Link>
                  }
                  secondary={equipmentStrings.serialNumber(unit.serialNumber)}
                  sx={{ flexBasis: '100%' }}
                />
                <MaintenanceMark unit={unit} />
              </ListItem>
            ))}
          </List>
        )}
        {editor && model && <CreateUnitDialog modelId={model.id} departmentId={departmentId} />}
      </Stack>
    </Paper>
  );
}
