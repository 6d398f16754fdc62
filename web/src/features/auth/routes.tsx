import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

// Loaded on its own, like the other pages: the public instruction page a phone opens then
// does not carry the sign-in form's fields in its first load.
export const loginRoute: RouteObject = {
  path: paths.login,
  lazy: async () => ({ Component: (await import('./components/login-page')).LoginPage }),
};

// A sign-in's second step (issue 39.4): public, loaded only when a code is asked for.
export const loginCodeRoute: RouteObject = {
  path: paths.loginCode,
  lazy: async () => ({ Component: (await import('./components/login-code-page')).LoginCodePage }),
};

// «Забыли пароль?» (issue 39.3): public, each loaded on its own, outside the sign-in page's load.
export const passwordResetRoutes: RouteObject[] = [
  {
    path: paths.forgotPassword,
    lazy: async () => ({
      Component: (await import('./components/forgot-password-page')).ForgotPasswordPage,
    }),
  },
  {
    path: paths.resetPassword,
    lazy: async () => ({
      Component: (await import('./components/reset-password-page')).ResetPasswordPage,
    }),
  },
];

// A first sign-in without an administrator typing a password (issue 39.3): public, loaded on
// its own, outside the sign-in page's load. One route for both ways in (an invitation's link
// carries `?token=`, a printed code does not): every route costs the first load of every page.
export const firstSignInRoute: RouteObject = {
  path: paths.firstSignIn,
  lazy: async () => ({ Component: (await import('./components/first-sign-in-page')).FirstSignInPage }),
};
