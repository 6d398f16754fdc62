import { Outlet } from 'react-router';

import { useSession } from '@/lib/session/session';

import { DataProviders } from '../data-provider';
import { AppLayout } from './app-layout';

/**
 * For a page open to everyone that a signed-in person also meets (no access to a section):
 * inside the portal's header and sidebar when signed in, a bare page otherwise.
 */
export function SessionLayout() {
  // The header's search box and bell load data, so the layout comes with the data layer.
  return useSession() ? (
    <DataProviders>
      <AppLayout />
    </DataProviders>
  ) : (
    <Outlet />
  );
}
