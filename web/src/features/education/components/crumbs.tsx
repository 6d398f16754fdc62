import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useArticle, useCourse, useTest } from '../api/education-queries';

// Spec §2: a breadcrumb names the loaded entity; until then 'Загрузка...', and the raw
// route parameter when there is nothing to load.
function title(raw: string | undefined, id: bigint | undefined, loaded: string | undefined, failed: boolean) {
  if (loaded) return loaded;
  return id === undefined || failed ? raw : strings.common.loading;
}

export function CourseCrumb({ params }: { params: Params }) {
  const id = parseId(params.courseId);
  const query = useCourse(id);
  return title(params.courseId, id, query.data?.course?.title, query.isError);
}

export function ArticleCrumb({ params }: { params: Params }) {
  const id = parseId(params.articleId);
  const query = useArticle(id);
  return title(params.articleId, id, query.data?.article?.title, query.isError);
}

export function TestCrumb({ params }: { params: Params }) {
  const id = parseId(params.testId);
  const query = useTest(id);
  return title(params.testId, id, query.data?.test?.title, query.isError);
}
