import { Outlet, useNavigation } from 'react-router';

import { LoadingBar } from '@/components/loading-bar';

/** The root of every route: the loading bar while the next page's code arrives. */
export function PageLoad() {
  const loading = useNavigation().state === 'loading';
  return (
    <>
      {loading && <LoadingBar />}
      <Outlet />
    </>
  );
}
