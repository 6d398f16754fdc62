import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

import { NoAccessPage } from './components/no-access-page';
import { NotFoundPage } from './components/not-found-page';

export const noAccessRoute: RouteObject = { path: paths.notAllowed, element: <NoAccessPage /> };

export const notFoundRoute: RouteObject = { path: '*', element: <NotFoundPage /> };
