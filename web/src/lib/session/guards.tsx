import { useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';

import { paths } from '@/config/paths';

import { withReturnPath } from './return-path';
import { hasAnyRight, type Right } from './rights';
import { useSession } from './session';

/**
 * The routes inside it need a session (spec §2). Arriving without one leads to the no-access
 * page, which keeps the address asked for, to open after the sign-in; a session that ends
 * while the user is inside (sign-out, expiry, another tab) leads back to the sign-in page
 * (and home after it: on a shared ward PC the next person is not led to the last one's page).
 */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  const [arrivedSignedIn] = useState(session !== null);
  if (session !== null) return <Outlet />;
  return <Navigate to={arrivedSignedIn ? paths.login : withReturnPath(paths.notAllowed, location)} replace />;
}

/** The routes inside it need any one of `anyOf`; otherwise the no-access page. */
export function RequireRight({ anyOf }: { anyOf: readonly Right[] }) {
  const session = useSession();
  return hasAnyRight(anyOf, session) ? <Outlet /> : <Navigate to={paths.notAllowed} replace />;
}
