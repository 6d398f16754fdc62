import { FormLabel, Stack } from '@mui/material';
import { useRef } from 'react';
import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { RevisionHistory } from '@/components/revision-history';
import { adminStrings } from '@/lib/admin-strings';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import {
  useArticle,
  useArticleRevisions,
  useArticleRevisionText,
  useRestoreArticleRevision,
  useUpdateArticle,
} from '../../api/education-queries';
import type { ArticleFormValues } from '../../utils/form-values';
import { ArticleForm } from './article-form';
import { RichTextEditor } from './rich-text-editor';

const text = adminStrings.education.article;

/** «История изменений» of the article: its saves, compared as text, and a restore. */
function ArticleHistory({ articleId, onRestored }: { articleId: bigint; onRestored: () => void }) {
  const restore = useRestoreArticleRevision();
  return (
    <RevisionHistory
      load={useArticleRevisions(articleId)}
      size={strings.revisions.articleSize}
      textOf={useArticleRevisionText(articleId)}
      restore={(revisionId) => restore.mutateAsync({ articleId, revisionId }).then(onRestored)}
      cacheKey={['article', articleId.toString()]}
    />
  );
}

export function ArticlePage() {
  const articleId = parseId(useParams().adminArticleId);
  const query = useArticle(articleId);
  const update = useUpdateArticle();
  // The editor's HTML once edited; the saved article, cleaned by the server, replaces it.
  const content = useRef<string | undefined>(undefined);

  return (
    <EditPage
      id={articleId}
      load={query}
      entity={query.data?.article}
      title={(article) => article.title}
      formId="article"
      save={async (article, values: ArticleFormValues) => {
        await update.mutateAsync({ id: article.id, ...values, content: content.current ?? article.content });
        content.current = undefined;
      }}
      saved={text.saved}
      failed={() => text.saveFailed}
      maxWidth={960}
      below={(article) => (
        <ArticleHistory
          articleId={article.id}
          // The editor starts again from the restored content: edits before it are gone.
          onRestored={() => {
            content.current = undefined;
          }}
        />
      )}
    >
      {(article, form) => (
        <ArticleForm
          {...form}
          initial={{
            title: article.title,
            description: article.description,
            dateDeadline: article.dateDeadline,
            testId: article.testId,
          }}
        >
          <Stack spacing={1}>
            <FormLabel>{text.content}</FormLabel>
            <RichTextEditor
              label={text.content}
              initialHtml={article.content}
              disabled={form.disabled}
              onChange={(html) => {
                content.current = html;
              }}
            />
          </Stack>
        </ArticleForm>
      )}
    </EditPage>
  );
}
