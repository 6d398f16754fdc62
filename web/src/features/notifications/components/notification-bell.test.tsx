import { createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import type { Notification } from '../api/notification-queries';
import { NotificationBell } from './notification-bell';

const course: Notification = {
  id: 'education:course:5:2026-11-20',
  kind: 'course',
  title: 'Работа с ИВЛ',
  link: '/courses/5',
  dueDate: '2026-11-20',
  overdue: true,
  read: false,
};
const maintenance: Notification = {
  id: 'wiki:maintenance:3:2026-12-01',
  kind: 'maintenance',
  title: 'Hamilton C3, инв. № 101',
  link: '/departments/environments/1/environment/2/maintenance-logbook?unit=3',
  dueDate: '2026-12-01',
  overdue: false,
  read: false,
};

/** The gateway's /api/notification/* over an in-memory list, answering in the envelope. */
function restServer(items: Notification[]) {
  const marked: string[][] = [];
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    await Promise.resolve();
    const path = input as string;
    if (path === '/api/notification/mark-read') {
      const ids = (JSON.parse(init?.body as string) as { ids: string[] }).ids;
      marked.push(ids);
      for (const item of items) if (ids.includes(item.id)) item.read = true;
      return Response.json({ success: true, data: null, errorMessage: null });
    }
    const unread = items.filter((item) => !item.read).length;
    return Response.json({
      success: true,
      data: { notifications: structuredClone(items), unread, complete: true },
      errorMessage: null,
    });
  });
  return { fetchMock, marked };
}

const render = () =>
  renderPage(<NotificationBell />, {
    transport: createRouterTransport(() => {}),
    pattern: '*',
    path: '/home',
  });

describe('NotificationBell', () => {
  beforeEach(() => {
    signInAs({ sub: '2' });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('counts the unread items and lists each with its page and due date', async () => {
    const server = restServer([structuredClone(course), structuredClone(maintenance)]);
    vi.stubGlobal('fetch', server.fetchMock);
    render();
    const bell = await screen.findByRole('button', { name: 'Уведомления: новых 2' });
    await userEvent.click(bell);
    const list = await screen.findByRole('dialog', { name: 'Уведомления' });
    const links = within(list).getAllByRole('link');
    expect(links.map((link) => link.getAttribute('href'))).toEqual([course.link, maintenance.link]);
    expect(within(list).getByText(/просрочено, срок был 20\.11\.2026/)).toBeInTheDocument();
    expect(within(list).getByText(/Обслуживание · срок 01\.12\.2026/)).toBeInTheDocument();
  });

  it('marks an item read when it is opened, and all at once', async () => {
    const server = restServer([structuredClone(course), structuredClone(maintenance)]);
    vi.stubGlobal('fetch', server.fetchMock);
    render();
    await userEvent.click(await screen.findByRole('button', { name: 'Уведомления: новых 2' }));
    const list = await screen.findByRole('dialog', { name: 'Уведомления' });
    await userEvent.click(within(list).getByRole('link', { name: /Работа с ИВЛ/ }));
    await waitFor(() => expect(server.marked).toEqual([[course.id]]));
    expect(await screen.findByRole('button', { name: 'Уведомления: новых 1' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Уведомления: новых 1' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Прочитать все' }));
    await waitFor(() => expect(server.marked).toEqual([[course.id], [maintenance.id]]));
    // The list stays open over the page, so the bell behind it is hidden from the tree.
    expect(
      await screen.findByRole('button', { name: 'Уведомления: новых нет', hidden: true }),
    ).toBeInTheDocument();
  });
});
