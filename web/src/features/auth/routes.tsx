import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

import { LoginPage } from './components/login-page';

export const loginRoute: RouteObject = { path: paths.login, element: <LoginPage /> };
