import NavigateNext from '@mui/icons-material/NavigateNext';
import { Breadcrumbs as MuiBreadcrumbs, Link, Tooltip, Typography } from '@mui/material';
import { useRef, useState } from 'react';
import { Link as RouterLink, useMatches, type Params } from 'react-router';

import { paths } from '@/config/paths';
import { isCrumbHandle, type CrumbTitle } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

function Title({ title, params }: { title: CrumbTitle; params: Params }) {
  if (typeof title === 'string') return title;
  const Resolve = title;
  return <Resolve params={params} />;
}

// A step keeps to one line: a long title ends in '…' (at most about half a phone's width).
const oneLine = {
  display: 'block',
  maxWidth: { xs: '11rem', sm: '20rem' },
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
} as const;

type StepProps = { title: CrumbTitle; params: Params; to: string; current: boolean };

/**
 * One step, shortened to one line; when it is shortened, its whole title shows on hover or a
 * long press (the tooltip). Its accessible name is the whole title anyway.
 */
function Step({ title, params, to, current }: StepProps) {
  const [open, setOpen] = useState(false);
  const element = useRef<HTMLElement | null>(null);
  const ref = (node: HTMLElement | null) => {
    element.current = node;
  };
  const shortened = () => {
    const node = element.current;
    return node !== null && node.scrollWidth > node.clientWidth;
  };
  const text = <Title title={title} params={params} />;
  return (
    <Tooltip title={text} open={open} onOpen={() => setOpen(shortened())} onClose={() => setOpen(false)}>
      {current ? (
        <Typography ref={ref} aria-current="page" sx={{ ...oneLine, color: 'text.primary', fontWeight: 500 }}>
          {text}
        </Typography>
      ) : (
        <Link ref={ref} component={RouterLink} to={to} underline="hover" color="inherit" sx={oneLine}>
          {text}
        </Link>
      )}
    </Tooltip>
  );
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
      sx={{ mb: 3, '& .MuiBreadcrumbs-ol': { rowGap: 0.5 }, '& .MuiBreadcrumbs-li': { minWidth: 0 } }}
    >
      <Link component={RouterLink} to={paths.home} underline="hover" color="inherit">
        {strings.nav.home}
      </Link>
      {steps.map((step, index) => (
        <Step
          key={step.id}
          title={step.title}
          params={step.params}
          to={step.to}
          current={index === steps.length - 1}
        />
      ))}
    </MuiBreadcrumbs>
  );
}
