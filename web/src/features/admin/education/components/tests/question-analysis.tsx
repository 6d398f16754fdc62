import {
  Box,
  LinearProgress,
  Paper,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';

import { DataTable } from '@/components/data-table';
import { Loading, LoadError } from '@/components/load-state';
import { adminStrings } from '@/lib/admin-strings';

import { useQuestionAnalysis } from '../../api/education-queries';

const text = adminStrings.education.analysis;

// Below half right, a question is worth a second look; below a quarter, it is likely wrong.
const colour = (rate: number) => (rate < 0.25 ? 'error' : rate < 0.5 ? 'warning' : 'success');

/** Beyond the spec: how often each question of a test is answered right. */
export function QuestionAnalysis({ testId }: { testId: bigint }) {
  const query = useQuestionAnalysis(testId);

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.questions.every((question) => question.timesAnswered === 0)) {
    content = <Typography sx={{ color: 'text.secondary' }}>{text.none}</Typography>;
  } else {
    content = (
      <DataTable label={text.title}>
        <TableHead>
          <TableRow>
            <TableCell>{text.question}</TableCell>
            <TableCell align="right">{text.answered}</TableCell>
            <TableCell align="right">{text.correct}</TableCell>
            <TableCell sx={{ minWidth: 160 }}>{text.rate}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {query.data.questions.map((question) => {
            const rate = question.timesAnswered === 0 ? 0 : question.timesCorrect / question.timesAnswered;
            return (
              <TableRow key={question.questionId}>
                <TableCell>{question.title}</TableCell>
                <TableCell align="right">{question.timesAnswered}</TableCell>
                <TableCell align="right">{question.timesCorrect}</TableCell>
                <TableCell>
                  {question.timesAnswered > 0 && (
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                      <LinearProgress
                        variant="determinate"
                        value={rate * 100}
                        aria-label={`${text.rate}: ${question.title}`}
                        color={colour(rate)}
                        sx={{ flex: 1, height: 8, borderRadius: 4 }}
                      />
                      <Typography variant="body2">{Math.round(rate * 100)}%</Typography>
                    </Box>
                  )}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </DataTable>
    );
  }

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} component="section" aria-label={text.title}>
      <Typography variant="h6" component="h3" sx={{ fontWeight: 600 }}>
        {text.title}
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
        {text.hint}
      </Typography>
      {content}
    </Paper>
  );
}
