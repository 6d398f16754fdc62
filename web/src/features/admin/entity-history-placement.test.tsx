import { createRouterTransport } from '@connectrpc/connect';
import { screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { CoursePage } from './education/components/courses/course-page';
import { ModelPage } from './equipment/components/model-page';

// An admin page of a model or a course shows the thing's own history (issue 25), and only to
// whoever reads the audit log: anyone else's page neither shows it nor asks for it.

const transport = createRouterTransport(({ service }) => {
  service(WikiService, {
    getEnvironmentModel: () => ({ environmentModel: { id: 7n, name: 'IntelliVue MX450' } }),
  });
  service(EducationService, {
    getFullCourseInfo: () => ({ course: { id: 5n, title: 'СЛР' } }),
    getCourseCompliance: () => ({ course: { id: 5n, title: 'СЛР' }, today: '2026-11-23' }),
  });
});

const asked = (input: RequestInfo | URL | undefined) =>
  new URL(input instanceof Request ? input.url : (input ?? ''), 'http://portal');

/** The gateway's audit log answering one rename of whatever it is asked about (a thing's `name` reads «Название»). */
function auditLog() {
  const fetchMock = vi.fn<typeof fetch>(async (input) => {
    await Promise.resolve();
    const query = asked(input).searchParams;
    return Response.json({
      success: true,
      data: {
        records: [
          {
            service: 'wiki',
            id: 1,
            time: '2026-11-26T10:00:00Z',
            actor: { kind: 'person', userId: 1, name: 'Администратор Системный', clientId: '', login: '' },
            address: '',
            requestId: '',
            entity: query.get('entity'),
            entityId: Number(query.get('entityId')),
            action: 'update',
            changes: [{ field: 'name', old: 'Старое', new: 'Новое' }],
            reason: '',
          },
        ],
        total: 1,
        page: 1,
        pageSize: 20,
        incomplete: false,
        missing: [],
      },
      errorMessage: null,
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const pages: [string, ReactNode, string, string][] = [
  [
    'model',
    <ModelPage key="model" />,
    '/admin/equipments/equipment-models/:adminEnvironmentModelId',
    '/admin/equipments/equipment-models/7',
  ],
  [
    'course',
    <CoursePage key="course" />,
    '/admin/education/courses/:adminCourseId',
    '/admin/education/courses/5',
  ],
];

describe.each(pages)('the %s page’s history', (_, page, pattern, path) => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const entity = path.includes('equipment') ? 'environment-model' : 'course';
  const id = path.split('/').at(-1);

  it('shows its own records to a holder of UserManagement', async () => {
    signInAs({ rights: ['EquipmentEditing', 'EducationManagement', 'UserManagement'] });
    const fetchMock = auditLog();
    renderPage(page, { transport, pattern, path });

    const history = await screen.findByRole('region', { name: 'История изменений' });
    expect(await within(history).findByText('Название: Старое → Новое')).toBeInTheDocument();
    const url = asked(fetchMock.mock.calls[0]?.[0]);
    expect(url.pathname).toBe('/api/audit/get-records');
    expect(url.searchParams.get('entity')).toBe(entity);
    expect(url.searchParams.get('entityId')).toBe(id);
  });

  it('is neither shown nor asked for without UserManagement', async () => {
    signInAs({ rights: ['EquipmentEditing', 'EducationManagement'] });
    const fetchMock = auditLog();
    renderPage(page, { transport, pattern, path });

    expect(await screen.findByRole('button', { name: 'Сохранить' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'История изменений' })).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
