import type { RouteObject } from 'react-router';

import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

// /cabinet, /my-tests and /my-statistics are the home page's bottom navigation items.
export const homeRoutes: RouteObject[] = [
  { path: paths.home, element: <UnderConstruction title={strings.pages.home} /> },
  { path: paths.cabinet, element: <UnderConstruction title={strings.pages.cabinet} /> },
  { path: paths.myTests, element: <UnderConstruction title={strings.pages.myTests} /> },
  { path: paths.myStatistics, element: <UnderConstruction title={strings.pages.myStatistics} /> },
];
