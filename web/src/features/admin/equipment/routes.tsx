import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// /admin/equipments: tabs equipment-models and reference-data. The models list (index)
// with a model's page as its child, which replaces the list (spec §2); the reference
// lists beyond the spec. Each page loads on first use, its strings with it.
export const equipmentAdminRoutes: RouteObject[] = [
  {
    lazy: async () => ({
      Component: (await import('./components/equipment-layout')).EquipmentLayout,
    }),
    children: [
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
      {
        path: paths.adminEquipmentReference,
        lazy: async () => {
          const [page, { equipmentStrings }] = await Promise.all([
            import('./components/reference/reference-page'),
            import('@/lib/equipment-strings'),
          ]);
          return { Component: page.ReferencePage, handle: crumb(equipmentStrings.reference.title) };
        },
      },
    ],
  },
];
