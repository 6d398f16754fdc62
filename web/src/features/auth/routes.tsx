import type { RouteObject } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';
import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

export const loginRoute: RouteObject = {
  path: paths.login,
  element: (
    <StandalonePage>
      <UnderConstruction title={strings.pages.login} />
    </StandalonePage>
  ),
};
