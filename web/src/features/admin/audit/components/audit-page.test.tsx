import { createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { AuditPage } from './audit-page';

// «Журнал действий» pages by cursor (issue 25): «Далее» hands back the page's `nextCursor`,
// «Назад» the cursor of the page before, kept on the way.

const transport = createRouterTransport(({ service }) => {
  service(AuthService, { listUsers: () => ({ users: [] }) });
});

const asked = (input: RequestInfo | URL | undefined) =>
  new URL(input instanceof Request ? input.url : (input ?? ''), 'http://portal');

/** Three pages of one record each, chained by cursors `c2` and `c3`; 120 records in all. */
function threePages() {
  const next: Record<string, string | null> = { '': 'c2', c2: 'c3', c3: null };
  const fetchMock = vi.fn<typeof fetch>(async (input) => {
    await Promise.resolve();
    const cursor = asked(input).searchParams.get('cursor') ?? '';
    return Response.json({
      success: true,
      data: {
        records: [
          {
            service: 'auth',
            id: 1,
            time: '2026-11-26T10:00:00Z',
            actor: { kind: 'system', clientId: '', login: '' },
            address: '',
            requestId: '',
            entity: 'department',
            entityId: 1,
            action: 'update',
            changes: [{ field: 'title', old: null, new: `Отделение ${cursor || 'c1'}` }],
            reason: '',
          },
        ],
        total: 120,
        page: 1,
        pageSize: 50,
        nextCursor: next[cursor],
        incomplete: false,
        missing: [],
      },
      errorMessage: null,
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

describe('the journal’s pages', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('go forward by each page’s cursor and back along the same ones', async () => {
    signInAs({ rights: ['UserManagement'] });
    const fetchMock = threePages();
    renderPage(<AuditPage />, { transport, pattern: '/admin/audit', path: '/admin/audit' });
    const user = userEvent.setup();
    const pages = await screen.findByRole('navigation', { name: 'Страницы журнала' });
    const previous = () => screen.getByRole('button', { name: 'Назад' });
    const next = () => screen.getByRole('button', { name: 'Далее' });
    const lastCursor = () => asked(fetchMock.mock.calls.at(-1)?.[0]).searchParams.get('cursor');

    expect(await screen.findByText('Название: — → Отделение c1')).toBeInTheDocument();
    expect(pages).toHaveTextContent('Страница 1 из 3');
    expect(previous()).toBeDisabled();
    expect(asked(fetchMock.mock.calls[0]?.[0]).searchParams.get('page')).toBe('1');

    await user.click(next());
    expect(await screen.findByText('Название: — → Отделение c2')).toBeInTheDocument();
    expect(lastCursor()).toBe('c2');
    await waitFor(() => expect(next()).toBeEnabled());
    await user.click(next());
    expect(await screen.findByText('Название: — → Отделение c3')).toBeInTheDocument();
    expect(lastCursor()).toBe('c3');
    expect(screen.getByRole('navigation', { name: 'Страницы журнала' })).toHaveTextContent('Страница 3 из 3');
    expect(next()).toBeDisabled();

    await user.click(previous());
    expect(await screen.findByText('Название: — → Отделение c2')).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Страницы журнала' })).toHaveTextContent('Страница 2 из 3');
    await user.click(previous());
    expect(await screen.findByText('Название: — → Отделение c1')).toBeInTheDocument();
    expect(previous()).toBeDisabled();
  });

  it('reads a status, departments and people by name, not by id', async () => {
    signInAs({ rights: ['UserManagement'] });
    const record = {
      service: 'auth',
      id: 2,
      time: '2026-11-26T10:00:00Z',
      actor: { kind: 'system', clientId: '', login: '' },
      address: '',
      requestId: '',
      entity: 'user',
      entityId: 7,
      entityName: 'Орлов Сергей Петрович',
      action: 'update',
      changes: [
        { field: 'statusId', old: 1, new: 4 },
        { field: 'departmentIds', old: null, new: [2, 9] },
        { field: 'surname', old: 'Орлов', new: 'Орлов' },
      ],
      reason: '',
    };
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() =>
        Promise.resolve(
          Response.json({
            success: true,
            data: { records: [record], total: 1, page: 1, pageSize: 50, incomplete: false, missing: [] },
            errorMessage: null,
          }),
        ),
      ),
    );
    const reference = createRouterTransport(({ service }) => {
      service(AuthService, {
        listUsers: () => ({ users: [] }),
        listStatuses: () => ({
          statuses: [
            { id: 1n, name: 'Работает' },
            { id: 4n, name: 'Уволен', blocksSignIn: true },
          ],
        }),
        listDepartments: () => ({ departments: [{ id: 2n, title: 'Хирургическое отделение' }] }),
      });
    });
    renderPage(<AuditPage />, { transport: reference, pattern: '/admin/audit', path: '/admin/audit' });

    expect(await screen.findByText('Статус: Работает → Уволен')).toBeInTheDocument();
    // A department the reader's list lacks (deleted since) keeps its number.
    expect(await screen.findByText('Отделения: — → Хирургическое отделение, №9')).toBeInTheDocument();
    expect(screen.getByText('Фамилия: Орлов → Орлов')).toBeInTheDocument();
  });
});
