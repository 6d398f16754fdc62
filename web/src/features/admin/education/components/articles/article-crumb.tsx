import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useArticle } from '../../api/education-queries';

/** The breadcrumb of articles/:adminArticleId: the article's title. */
export function ArticleCrumb({ params }: { params: Params }) {
  const articleId = parseId(params.adminArticleId);
  const query = useArticle(articleId);
  return entityCrumb(query.data?.article?.title, articleId === undefined || query.isError);
}
