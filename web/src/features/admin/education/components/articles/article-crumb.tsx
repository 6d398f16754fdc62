import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useArticle } from '../../api/education-queries';

/** The breadcrumb of articles/:adminArticleId: the article's title. */
export function ArticleCrumb({ params }: { params: Params }) {
  const articleId = parseId(params.adminArticleId);
  const query = useArticle(articleId);
  const failed = articleId === undefined || query.isError;
  return query.data?.article?.title ?? (failed ? params.adminArticleId : strings.common.loading);
}
