import { Link, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { callRest } from '@/lib/authorized-fetch';
import { equipmentStrings } from '@/lib/equipment-strings';
import { getSession } from '@/lib/session/session';

import { unitPage } from '../utils/pages';

/** A unit as ListEnvironmentsByModel answers over REST. */
type UnitAnswer = { id: number; departmentId: number; inventoryNumber: string };

/**
 * On the public instruction page a unit's label opens (`?unit=`, issue 37): which device it is,
 * its inventory number as a link to the unit's own page, for a phone that is signed in and
 * whose person sees the unit. Nothing otherwise: the label itself bears the number, and the
 * instruction is what the page is for. One REST GET with the session's token, no grpc-web.
 */
export function PublicUnit({ modelId, unitId }: { modelId: bigint; unitId: bigint }) {
  const [unit, setUnit] = useState<UnitAnswer>();

  useEffect(() => {
    if (getSession() === null) return;
    let current = true;
    callRest<UnitAnswer[]>(`/api/environment/get-all-by-model-id?environmentModelId=${String(modelId)}`).then(
      (units) => {
        if (current) setUnit(units.find((candidate) => BigInt(candidate.id) === unitId));
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [modelId, unitId]);

  return unit ? (
    <Typography sx={{ fontSize: '1.125rem', mb: 2 }}>
      <Link component={RouterLink} to={unitPage(unit.departmentId, modelId, unit.id)}>
        {equipmentStrings.inventoryNumber(unit.inventoryNumber)}
      </Link>
    </Typography>
  ) : null;
}
