import ArticleOutlined from '@mui/icons-material/ArticleOutlined';
import { ListItemIcon, ListItemText, Typography } from '@mui/material';
import { useParams } from 'react-router';

import { LinkList, LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { NotFound } from '@/components/not-found';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { isClientError } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useCourse, useCourseArticles } from '../api/education-queries';
import { articlePath } from '../utils/routes';

/** A course: its description and deadline, then its articles in course order. */
export function CoursePage() {
  const courseId = parseId(useParams().courseId);
  const course = useCourse(courseId);
  const articles = useCourseArticles(courseId);

  const missing = (
    <NotFound
      message={strings.errors.courseNotFound}
      backTo={paths.courses}
      backLabel={strings.errors.toCourses}
    />
  );
  if (courseId === undefined || isClientError(course.error) || isClientError(articles.error)) return missing;
  if (course.isError || articles.isError) return <LoadError />;
  if (course.isPending || articles.isPending) return <Loading />;
  const found = course.data.course;
  if (!found) return missing;

  return (
    <>
      <PageHeader title={found.title} />
      <Typography sx={{ mb: 0.5 }}>{found.description}</Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2.5 }}>
        {strings.education.deadline(found.dateDeadline)}
      </Typography>
      {articles.data.articles.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{strings.education.noArticles}</Typography>
      ) : (
        <LinkList>
          {articles.data.articles.map((article) => (
            <LinkListItem key={article.id} to={articlePath(courseId, article.id)}>
              <ListItemIcon>
                <ArticleOutlined color="primary" />
              </ListItemIcon>
              <ListItemText
                primary={article.title}
                secondary={
                  article.dateDeadline
                    ? `${article.description} · ${strings.education.deadline(article.dateDeadline)}`
                    : article.description
                }
              />
            </LinkListItem>
          ))}
        </LinkList>
      )}
    </>
  );
}
