import SystemUpdateAltOutlined from '@mui/icons-material/SystemUpdateAltOutlined';
import { useEffect, useState } from 'react';
import { useRouteError } from 'react-router';

import { LoadingBar } from '@/components/loading-bar';
import {
  isStaleBuildError,
  markReloadForNewBuild,
  mayReloadForNewBuild,
  reloadPage,
} from '@/lib/stale-build';
import { strings } from '@/lib/strings';

import { ErrorScreen } from './error-screen';

const text = strings.errors.routeFailed;

/**
 * What a route shows instead of react-router's English developer page when its code does not
 * load or it throws (issue 37 point 16). A page whose code is gone after a deploy reloads by
 * itself, once, to the new build; otherwise a Russian page asks the person to reload.
 */
export function RouteErrorPage({ standalone = true }: { standalone?: boolean }) {
  const error = useRouteError();
  const stale = isStaleBuildError(error);
  const [reloading] = useState(() => stale && mayReloadForNewBuild());

  useEffect(() => {
    if (reloading && markReloadForNewBuild()) reloadPage();
  }, [reloading]);

  if (reloading) return <LoadingBar />;
  const offline = stale && !navigator.onLine;
  return (
    <ErrorScreen
      // One picture for both: reloading is the way out of either.
      icon={<SystemUpdateAltOutlined color="primary" sx={{ fontSize: 64 }} />}
      message={stale ? text.reloadTitle : text.brokenTitle}
      hint={offline ? text.offlineHint : stale ? text.newBuildHint : text.brokenHint}
      action={{ label: text.reload, onClick: reloadPage }}
      standalone={standalone}
    />
  );
}
