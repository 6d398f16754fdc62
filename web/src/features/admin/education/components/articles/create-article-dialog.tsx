import AddOutlined from '@mui/icons-material/AddOutlined';
import { Button, Typography } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateArticle } from '../../api/education-queries';
import { emptyArticle } from '../../utils/form-values';
import { ArticleForm } from './article-form';

const formId = 'create-article';
const text = adminStrings.education.article;

export function CreateArticleDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateArticle();

  return (
    <>
      <Button variant="contained" startIcon={<AddOutlined />} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={2000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <ArticleForm
          key={formKey}
          id={formId}
          initial={emptyArticle}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { ...values, content: '' },
              {
                onSuccess: () => notify.success(text.created),
                onError: () => notify.error(text.createFailed),
              },
            )
          }
        >
          <Typography variant="body2" sx={{ color: 'text.secondary' }}>
            {text.contentHint}
          </Typography>
        </ArticleForm>
      </FormDialog>
    </>
  );
}
