import CancelOutlined from '@mui/icons-material/CancelOutlined';
import CheckCircleOutline from '@mui/icons-material/CheckCircleOutline';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, Typography } from '@mui/material';

import type { CompleteTestResponse } from '@/gen/portal/education/v1/education_pb';
import { strings } from '@/lib/strings';

const text = strings.education.test;

type ResultDialogProps = { result: CompleteTestResponse | undefined; onClose: () => void };

/** Spec §2 'Результаты теста': passed or not, and the points out of those possible. */
export function ResultDialog({ result, onClose }: ResultDialogProps) {
  return (
    <Dialog open={result !== undefined} onClose={onClose} fullWidth maxWidth="xs">
      <DialogTitle>{text.resultTitle}</DialogTitle>
      {result && (
        <DialogContent>
          <Stack spacing={2} sx={{ alignItems: 'center', textAlign: 'center', py: 1 }}>
            {result.isPassed ? (
              <CheckCircleOutline color="success" sx={{ fontSize: 56 }} />
            ) : (
              <CancelOutlined color="error" sx={{ fontSize: 56 }} />
            )}
            <Typography
              variant="h6"
              component="p"
              sx={{ color: result.isPassed ? 'success.main' : 'error.main', fontWeight: 600 }}
            >
              {result.isPassed ? text.resultPassed : text.resultFailed}
            </Typography>
            <Typography>{text.resultPoints(result.totalPoint, result.totalPointsPossible)}</Typography>
          </Stack>
        </DialogContent>
      )}
      <DialogActions>
        {/* Focused as the dialog opens: Enter closes it, as the keyboard's user expects. */}
        <Button variant="contained" onClick={onClose} autoFocus>
          {strings.common.close}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
