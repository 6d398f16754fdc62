import { useState } from 'react';
import { Navigate, Outlet } from 'react-router';

import { paths } from '@/config/paths';

import { hasAnyRight, type Right } from './rights';
import { useSession } from './session';

/**
 * The routes inside it need a session (spec §2). Arriving without one leads to the no-access
 * page; a session that ends while the user is inside (sign-out, expiry, another tab) leads
 * back to the sign-in page.
 */
export function RequireSession() {
  const session = useSession();
  const [arrivedSignedIn] = useState(session !== null);
  if (session !== null) return <Outlet />;
  return <Navigate to={arrivedSignedIn ? paths.login : paths.notAllowed} replace />;
}

/** The routes inside it need any one of `anyOf`; otherwise the no-access page. */
export function RequireRight({ anyOf }: { anyOf: readonly Right[] }) {
  const session = useSession();
  return hasAnyRight(anyOf, session) ? <Outlet /> : <Navigate to={paths.notAllowed} replace />;
}
