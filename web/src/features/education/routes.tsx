import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// /courses/:courseId/article/:articleId/test/:testId — each level's index is its own page,
// so a deeper page replaces the one above it. Every page loads on first use; a level's
// breadcrumb (the loaded course's, article's or test's title) comes with its own code.
export const educationRoutes: RouteObject[] = [
  {
    path: paths.courses,
    handle: crumb(strings.pages.courses),
    children: [
      {
        index: true,
        lazy: async () => ({ Component: (await import('./components/course-list-page')).CourseListPage }),
      },
      {
        path: ':courseId',
        lazy: async () => ({ handle: crumb((await import('./components/crumbs')).CourseCrumb) }),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./components/course-page')).CoursePage }),
          },
          {
            path: 'article/:articleId',
            lazy: async () => ({ handle: crumb((await import('./components/crumbs')).ArticleCrumb) }),
            children: [
              {
                index: true,
                lazy: async () => ({ Component: (await import('./components/article-page')).ArticlePage }),
              },
              {
                path: 'test/:testId',
                lazy: async () => {
                  const [page, title] = await Promise.all([
                    import('./components/test-page'),
                    import('./components/crumbs'),
                  ]);
                  return { Component: page.TestPage, handle: crumb(title.TestCrumb) };
                },
              },
            ],
          },
        ],
      },
    ],
  },
  {
    path: paths.myTests,
    lazy: async () => ({ Component: (await import('./components/my-tests-page')).MyTestsPage }),
    handle: crumb(strings.pages.myTests),
  },
  {
    path: paths.myStatistics,
    lazy: async () => ({ Component: (await import('./components/my-statistics-page')).MyStatisticsPage }),
    handle: crumb(strings.pages.myStatistics),
  },
];
