import { Button, FormLabel, Paper, Stack } from '@mui/material';
import { useRef } from 'react';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { adminStrings } from '@/lib/admin-strings';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useArticle, useUpdateArticle } from '../../api/education-queries';
import { ArticleForm } from './article-form';
import { RichTextEditor } from './rich-text-editor';

const formId = 'article';
const text = adminStrings.education.article;

export function ArticlePage() {
  const articleId = parseId(useParams().adminArticleId);
  const query = useArticle(articleId);
  const update = useUpdateArticle();
  const content = useRef<string | undefined>(undefined);

  if (articleId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const article = query.data.article;
  if (!article) return <LoadError />;

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 960 }}>
      <PageHeader title={article.title} />
      <Stack spacing={3}>
        {/* Saved data comes back refetched (cleaned by the server): a new key starts from it. */}
        <ArticleForm
          key={query.dataUpdatedAt}
          id={formId}
          initial={{
            title: article.title,
            description: article.description,
            dateDeadline: article.dateDeadline,
            testId: article.testId,
          }}
          disabled={update.isPending}
          onSubmit={(values) =>
            update.mutate(
              { id: article.id, ...values, content: content.current ?? article.content },
              {
                onSuccess: () => {
                  content.current = undefined;
                  notify.success(text.saved);
                },
                onError: () => notify.error(text.saveFailed),
              },
            )
          }
        >
          <Stack spacing={1}>
            <FormLabel>{text.content}</FormLabel>
            <RichTextEditor
              key={query.dataUpdatedAt}
              label={text.content}
              initialHtml={article.content}
              disabled={update.isPending}
              onChange={(html) => {
                content.current = html;
              }}
            />
          </Stack>
        </ArticleForm>
        <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
          <Button type="submit" form={formId} variant="contained" loading={update.isPending}>
            {strings.common.save}
          </Button>
        </Stack>
      </Stack>
    </Paper>
  );
}
