import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// /admin/equipments/equipment-models: the list (index), and a model's page as its child,
// which replaces the list (spec §2). Each page loads on first use.
export const equipmentAdminRoutes: RouteObject[] = [
  { index: true, element: <Navigate to={paths.adminEquipmentModels} replace /> },
  {
    path: paths.adminEquipmentModels,
    handle: crumb(strings.pages.adminEquipmentModels),
    children: [
      {
        index: true,
        lazy: async () => ({ Component: (await import('./components/models-page')).ModelsPage }),
      },
      {
        path: ':adminEnvironmentModelId',
        lazy: async () => {
          const [page, title] = await Promise.all([
            import('./components/model-page'),
            import('./components/model-crumb'),
          ]);
          return { Component: page.ModelPage, handle: crumb(title.ModelCrumb) };
        },
      },
    ],
  },
];
