import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// Spec §2: tabs courses, articles, tests; each a list (index) with a detail child that
// replaces it. Every page loads on first use; the article page brings the Quill editor
// in its own chunk, so no other page (and never /login) loads it.
export const educationRoutes: RouteObject[] = [
  {
    lazy: async () => ({
      Component: (await import('./components/education-layout')).EducationLayout,
    }),
    children: [
      { index: true, element: <Navigate to={paths.adminCourses} replace /> },
      {
        path: paths.adminCourses,
        handle: crumb(strings.pages.adminCourses),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/courses/courses-page')).CoursesPage,
            }),
          },
          {
            path: ':adminCourseId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/courses/course-page'),
                import('./components/courses/course-crumb'),
              ]);
              return { Component: page.CoursePage, handle: crumb(title.CourseCrumb) };
            },
          },
        ],
      },
      {
        path: paths.adminArticles,
        handle: crumb(strings.pages.adminArticles),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/articles/articles-page')).ArticlesPage,
            }),
          },
          {
            path: ':adminArticleId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/articles/article-page'),
                import('./components/articles/article-crumb'),
              ]);
              return { Component: page.ArticlePage, handle: crumb(title.ArticleCrumb) };
            },
          },
        ],
      },
      {
        path: paths.adminTests,
        handle: crumb(strings.pages.adminTests),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./components/tests/tests-page')).TestsPage }),
          },
          {
            path: ':adminTestId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/tests/test-page'),
                import('./components/tests/test-crumb'),
              ]);
              return { Component: page.TestPage, handle: crumb(title.TestCrumb) };
            },
          },
        ],
      },
    ],
  },
];
