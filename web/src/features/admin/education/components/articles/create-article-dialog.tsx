import { Typography } from '@mui/material';

import { adminStrings } from '@/lib/admin-strings';

import { useCreateArticle } from '../../api/education-queries';
import { type ArticleFormValues, emptyArticle } from '../../utils/form-values';
import { CreateDialog } from '../create-dialog';
import { ArticleForm } from './article-form';

const text = adminStrings.education.article;

export function CreateArticleDialog() {
  const create = useCreateArticle();
  return (
    <CreateDialog
      formId="create-article"
      text={text}
      creation={{
        ...create,
        mutate: (values: ArticleFormValues, callbacks) =>
          create.mutate({ ...values, content: '' }, callbacks),
      }}
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
