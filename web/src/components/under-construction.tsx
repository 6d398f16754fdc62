import ConstructionOutlined from '@mui/icons-material/ConstructionOutlined';
import { Paper, Stack, Typography } from '@mui/material';

import { strings } from '@/lib/strings';

type UnderConstructionProps = { title: string };

/** The one placeholder for every page whose real content a later piece of work brings. */
export function UnderConstruction({ title }: UnderConstructionProps) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 4 } }}>
      <Typography variant="h5" component="h2" gutterBottom>
        {title}
      </Typography>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', color: 'text.secondary' }}>
        <ConstructionOutlined />
        <Typography>{strings.placeholder.text}</Typography>
      </Stack>
    </Paper>
  );
}
