import { createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { notify } from '@/lib/notifications';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import { AdminHome } from './admin-home';

/** send-digests-now as the gateway answers it: the run goes on in the background. */
const answering = (alreadyRunning: boolean) =>
  vi.fn<typeof fetch>(async () => {
    await Promise.resolve();
    return Response.json({
      success: true,
      data: { sent: 0, failed: 0, alreadySent: 0, alreadyRunning },
      errorMessage: null,
    });
  });

const render = () =>
  renderPage(<AdminHome />, { transport: createRouterTransport(() => {}), pattern: '*', path: '/admin' });

describe('AdminHome: sending the digests now', () => {
  beforeEach(() => {
    signInAs({ rights: ['EducationManagement'] });
    vi.spyOn(notify, 'success').mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('says the run started in the background', async () => {
    const fetchMock = answering(false);
    vi.stubGlobal('fetch', fetchMock);
    render();
    await userEvent.click(screen.getByRole('button', { name: 'Разослать сегодняшние напоминания' }));
    await waitFor(() =>
      expect(notify.success).toHaveBeenCalledWith(
        'Рассылка началась: письма уходят в фоне, это может занять несколько минут.',
      ),
    );
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/notification/send-digests-now');
  });

  it('says so when a run is already going on', async () => {
    vi.stubGlobal('fetch', answering(true));
    render();
    await userEvent.click(screen.getByRole('button', { name: 'Разослать сегодняшние напоминания' }));
    await waitFor(() =>
      expect(notify.success).toHaveBeenCalledWith(
        'Рассылка уже идёт: дождитесь её окончания, повторно нажимать не нужно.',
      ),
    );
  });

  it('is not offered without a right to send', () => {
    signInAs({ rights: ['EquipmentEditing'] });
    render();
    expect(screen.queryByRole('button', { name: 'Разослать сегодняшние напоминания' })).toBeNull();
  });
});
