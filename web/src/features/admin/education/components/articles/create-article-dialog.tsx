import { Typography } from '@mui/material';

import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';

import { useCreateArticle } from '../../api/education-queries';
import { type ArticleFormValues, emptyArticle } from '../../utils/form-values';
import { ArticleForm } from './article-form';

const text = adminStrings.education.article;

export function CreateArticleDialog() {
  const create = useCreateArticle();
  return (
    <CreateDialog
      formId="create-article"
      text={text}
      failed={() => text.createFailed}
      closeDelayMs={2000}
      create={(values: ArticleFormValues) => create.mutateAsync({ ...values, content: '' })}
    >
      {(form) => (
        <ArticleForm {...form} initial={emptyArticle}>
          <Typography variant="body2" sx={{ color: 'text.secondary' }}>
            {text.contentHint}
          </Typography>
        </ArticleForm>
      )}
    </CreateDialog>
  );
}
