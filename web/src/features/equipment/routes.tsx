import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { RequireRight } from '@/lib/session/guards';
import { Right } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

const crumbs = async () => import('./components/crumbs');

// /departments/environments/:departmentId/environment/:id/{documentation,…} (spec §2). Each
// page, with the wiki and files clients, loads on first use; the department's and the
// model's breadcrumbs name them.
export const equipmentRoutes: RouteObject[] = [
  {
    path: paths.departments,
    handle: crumb(strings.pages.departments),
    children: [
      {
        index: true,
        lazy: async () => ({ Component: (await import('./components/departments-page')).DepartmentsPage }),
      },
      {
        path: paths.maintenanceDue,
        element: <RequireRight anyOf={[Right.EquipmentEditing]} />,
        handle: crumb(strings.pages.maintenanceDue),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/maintenance-due-page')).MaintenanceDuePage,
            }),
          },
        ],
      },
      {
        path: 'environments/:departmentId',
        lazy: async () => ({ handle: crumb((await crumbs()).DepartmentCrumb) }),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/equipment-list-page')).EquipmentListPage,
            }),
          },
          {
            // The detail replaces the list (spec §2).
            path: 'environment/:id',
            lazy: async () => {
              const [page, title] = await Promise.all([import('./components/model-page'), crumbs()]);
              return { Component: page.ModelPage, handle: crumb(title.ModelCrumb) };
            },
            children: [
              { index: true, element: <Navigate to="documentation" replace /> },
              {
                path: 'documentation',
                lazy: async () => ({
                  Component: (await import('./components/documentation-page')).DocumentationPage,
                }),
              },
              {
                path: 'maintenance-logbook',
                lazy: async () => ({
                  Component: (await import('./components/maintenance-page')).MaintenanceLogbookPage,
                }),
              },
              {
                path: 'journal',
                lazy: async () => ({ Component: (await import('./components/journal-page')).JournalPage }),
              },
              {
                path: 'short-instruction',
                lazy: async () => ({
                  Component: (await import('./components/short-instruction-page')).ShortInstructionPage,
                }),
              },
            ],
          },
        ],
      },
    ],
  },
];

// A sheet of QR labels to print: a whole page of its own, without the portal's header and
// sidebar, but with the session and the data layer.
export const equipmentPrintRoutes: RouteObject[] = [
  {
    path: `${paths.departments}/environments/:departmentId/labels`,
    element: <RequireRight anyOf={[Right.EquipmentEditing]} />,
    children: [
      {
        index: true,
        lazy: async () => ({ Component: (await import('./components/label-sheet-page')).LabelSheetPage }),
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
