import SearchOffOutlined from '@mui/icons-material/SearchOffOutlined';
import { Button, Paper, Stack, Typography } from '@mui/material';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

type NotFoundProps = {
  /** What is missing, by name: 'Курс не найден.', 'Модель оборудования не найдена.' */
  message: string;
  /** Where to go instead: the list the thing would be in. */
  backTo?: string;
  backLabel?: string;
};

/**
 * A page whose course, article, test, department or model is missing or not the reader's: one
 * message naming it and the way back. Its query's refusal is not also a toast
 * (`refusalShownByPage`), and its breadcrumb says 'Не найдено' (`entityCrumb`).
 */
export function NotFound({ message, backTo = paths.home, backLabel = strings.errors.toHome }: NotFoundProps) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
      <Stack spacing={2.5} sx={{ alignItems: 'center', textAlign: 'center' }}>
        <SearchOffOutlined color="primary" sx={{ fontSize: 56 }} />
        <Typography variant="h6" component="h2">
          {message}
        </Typography>
        <Button variant="outlined" component={Link} to={backTo}>
          {backLabel}
        </Button>
      </Stack>
    </Paper>
  );
}
