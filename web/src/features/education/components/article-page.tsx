import QuizOutlined from '@mui/icons-material/QuizOutlined';
import { Box, Button, Paper, Stack, Typography } from '@mui/material';
import { Link, useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { NotFound } from '@/components/not-found';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { isClientError } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useArticle, useArticleTests } from '../api/education-queries';
import { testPath } from '../utils/routes';

// The editor's (Quill's) markup: headings 1-3, alignment classes, images and video frames.
const contentStyle = {
  overflowWrap: 'anywhere',
  '& h1': { typography: 'h5', fontWeight: 600, mt: 3, mb: 1.5 },
  '& h2': { typography: 'h6', fontWeight: 600, mt: 3, mb: 1 },
  '& h3': { typography: 'subtitle1', fontWeight: 600, mt: 2, mb: 1 },
  '& p': { my: 1, lineHeight: 1.7 },
  '& :first-child': { mt: 0 },
  '& img': { maxWidth: '100%', height: 'auto' },
  '& iframe': { maxWidth: '100%', border: 0, aspectRatio: '16 / 9', width: 640, height: 'auto' },
  '& .ql-align-center': { textAlign: 'center' },
  '& .ql-align-right': { textAlign: 'right' },
  '& .ql-align-justify': { textAlign: 'justify' },
} as const;

/** An article: its rich content (sanitised by the server) and a way into each of its tests. */
export function ArticlePage() {
  const params = useParams();
  const courseId = parseId(params.courseId);
  const articleId = parseId(params.articleId);
  const article = useArticle(articleId);
  const tests = useArticleTests(articleId);

  const missing = (
    <NotFound
      message={strings.errors.articleNotFound}
      backTo={paths.courses}
      backLabel={strings.errors.toCourses}
    />
  );
  if (courseId === undefined || articleId === undefined || isClientError(article.error)) return missing;
  if (article.isError) return <LoadError />;
  if (article.isPending) return <Loading />;
  const found = article.data.article;
  if (!found) return missing;

  return (
    <>
      <PageHeader title={found.title} />
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 4 }, mb: 3 }}>
        {/* The education service cleans the HTML with ammonia before storing it (DESIGN §8). */}
        <Box sx={contentStyle} dangerouslySetInnerHTML={{ __html: found.content }} />
      </Paper>
      {tests.isError && <LoadError />}
      <Stack spacing={1.5}>
        {tests.data?.tests.map((test) => (
          <Paper
            key={test.id}
            variant="outlined"
            sx={{
              p: 2,
              display: 'flex',
              flexDirection: { xs: 'column', sm: 'row' },
              alignItems: { xs: 'stretch', sm: 'center' },
              gap: 1.5,
            }}
          >
            <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flex: 1, minWidth: 0 }}>
              <QuizOutlined color="primary" />
              <Typography sx={{ fontWeight: 500 }}>{test.title}</Typography>
            </Stack>
            <Button variant="contained" component={Link} to={testPath(courseId, articleId, test.id)}>
              {strings.education.takeTest}
            </Button>
          </Paper>
        ))}
      </Stack>
    </>
  );
}
