import { ListItemText, Typography } from '@mui/material';

import { LetterGroups } from '@/components/letter-groups';
import { LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { groupByFirstLetter } from '@/lib/group-by-letter';
import { strings } from '@/lib/strings';

import { useArticles } from '../../api/education-queries';
import { CreateArticleDialog } from './create-article-dialog';

export function ArticlesPage() {
  const query = useArticles();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.articles.length === 0) {
    content = (
      <Typography sx={{ color: 'text.secondary' }}>{adminStrings.education.article.empty}</Typography>
    );
  } else {
    content = (
      <LetterGroups
        groups={groupByFirstLetter(query.data.articles, (article) => article.title)}
        renderItem={(article) => (
          <LinkListItem key={article.id} to={`${paths.adminArticles}/${article.id}`}>
            <ListItemText primary={article.title} secondary={article.description} />
          </LinkListItem>
        )}
      />
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminArticles} action={<CreateArticleDialog />} />
      {content}
    </>
  );
}
