import type { RouteObject } from 'react-router';

import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

// /departments/environments/:departmentId/environment/:id/{documentation,…}
export const equipmentRoutes: RouteObject[] = [
  {
    path: paths.departments,
    children: [
      { index: true, element: <UnderConstruction title={strings.pages.departments} /> },
      {
        path: 'environments/:departmentId',
        children: [
          { index: true, element: <UnderConstruction title={strings.pages.equipmentList} /> },
          {
            path: 'environment/:id',
            children: [
              { index: true, element: <UnderConstruction title={strings.pages.equipmentModel} /> },
              { path: 'documentation', element: <UnderConstruction title={strings.pages.documentation} /> },
              {
                path: 'maintenance-logbook',
                element: <UnderConstruction title={strings.pages.maintenanceLogbook} />,
              },
              { path: 'journal', element: <UnderConstruction title={strings.pages.journal} /> },
              {
                path: 'short-instruction',
                element: <UnderConstruction title={strings.pages.shortInstruction} />,
              },
            ],
          },
        ],
      },
    ],
  },
];

// The target of an equipment model's QR code: public, and without the portal's layout
// because it is opened on a phone next to the device. Loads only its own code.
export const publicInstructionRoute: RouteObject = {
  path: paths.publicShortInstruction,
  lazy: async () => ({
    Component: (await import('./components/public-instruction-page')).PublicInstructionPage,
  }),
};
