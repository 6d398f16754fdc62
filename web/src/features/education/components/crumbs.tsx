import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useArticle, useCourse, useTest } from '../api/education-queries';

// Spec §2: a breadcrumb names the loaded entity; until then 'Загрузка...', and 'Не найдено'
// when its page says it cannot find it.

export function CourseCrumb({ params }: { params: Params }) {
  const id = parseId(params.courseId);
  const query = useCourse(id);
  return entityCrumb(query.data?.course?.title, id === undefined || query.isError);
}

export function ArticleCrumb({ params }: { params: Params }) {
  const id = parseId(params.articleId);
  const query = useArticle(id);
  return entityCrumb(query.data?.article?.title, id === undefined || query.isError);
}

export function TestCrumb({ params }: { params: Params }) {
  const id = parseId(params.testId);
  const query = useTest(id);
  return entityCrumb(query.data?.test?.title, id === undefined || query.isError);
}
