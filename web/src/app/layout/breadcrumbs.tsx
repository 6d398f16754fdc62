import NavigateNext from '@mui/icons-material/NavigateNext';
import { Breadcrumbs as MuiBreadcrumbs, Link, Typography } from '@mui/material';
import { Link as RouterLink, useMatches, type Params } from 'react-router';

import { paths } from '@/config/paths';
import { isCrumbHandle, type CrumbTitle } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

function Title({ title, params }: { title: CrumbTitle; params: Params }) {
  if (typeof title === 'string') return title;
  const Resolve = title;
  return <Resolve params={params} />;
}

/**
 * Spec §2: the path to the current page, each step under its human title. A route joins by
 * naming a title in its `handle` (see `crumb`); a route of an entity names a component
 * that loads the entity's name. Home starts the trail; home itself has none.
 */
export function Breadcrumbs() {
  const steps = useMatches().flatMap((match) =>
    isCrumbHandle(match.handle)
      ? [{ id: match.id, to: match.pathname, title: match.handle.crumb, params: match.params }]
      : [],
  );
  if (steps.length === 0) return null;

  return (
    <MuiBreadcrumbs
      aria-label={strings.common.breadcrumbs}
      separator={<NavigateNext fontSize="small" />}
      sx={{ mb: 3, '& .MuiBreadcrumbs-ol': { rowGap: 0.5 } }}
    >
      <Link component={RouterLink} to={paths.home} underline="hover" color="inherit">
        {strings.nav.home}
      </Link>
      {steps.map((step, index) =>
        index === steps.length - 1 ? (
          <Typography key={step.id} aria-current="page" sx={{ color: 'text.primary', fontWeight: 500 }}>
            <Title title={step.title} params={step.params} />
          </Typography>
        ) : (
          <Link key={step.id} component={RouterLink} to={step.to} underline="hover" color="inherit">
            <Title title={step.title} params={step.params} />
          </Link>
        ),
      )}
    </MuiBreadcrumbs>
  );
}
