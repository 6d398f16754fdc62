import { Outlet } from 'react-router';

import { useSession } from '@/lib/session/session';

import { AppLayout } from './app-layout';

/**
 * For a page open to everyone that a signed-in person also meets (no access to a section):
 * inside the portal's header and sidebar when signed in, a bare page otherwise.
 */
export function SessionLayout() {
  return useSession() ? <AppLayout /> : <Outlet />;
}
