import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

import { HomePage } from './components/home-page';

export const homeRoutes: RouteObject[] = [{ path: paths.home, element: <HomePage /> }];
