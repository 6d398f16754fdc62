import type { RouteObject } from 'react-router';

import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

// /courses/:courseId/article/:articleId/test/:testId — each level's index is its own page,
// so a deeper page replaces the one above it.
export const educationRoutes: RouteObject[] = [
  {
    path: paths.courses,
    children: [
      { index: true, element: <UnderConstruction title={strings.pages.courses} /> },
      {
        path: ':courseId',
        children: [
          { index: true, element: <UnderConstruction title={strings.pages.course} /> },
          {
            path: 'article/:articleId',
            children: [
              { index: true, element: <UnderConstruction title={strings.pages.article} /> },
              { path: 'test/:testId', element: <UnderConstruction title={strings.pages.test} /> },
            ],
          },
        ],
      },
    ],
  },
];
