import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { savedAtHeader } from '@/lib/offline-copy';
import { renderRoute } from '@/testing/render-route';

import { savedCopyRetryMs } from '../api/public-instruction';

const instruction = (name: string, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({
      success: true,
      data: { name, shortInstruction: '<h2>Включение</h2><p>Нажмите кнопку.</p>' },
    }),
    { status: 200, headers: { 'Content-Type': 'application/json', ...headers } },
  );

describe('the public instruction page offline', () => {
  const fetchMock = vi.fn<typeof fetch>();

  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    fetchMock.mockReset();
  });

  it('says when a saved copy was saved, and gives way to the current one when the network is back', async () => {
    // The service worker's answer without a network: its copy, marked with when it was saved.
    const savedAt = new Date(2026, 10, 3, 14, 5);
    fetchMock.mockResolvedValueOnce(instruction('Монитор', { [savedAtHeader]: savedAt.toISOString() }));
    await renderRoute('/short-instruction/5');

    expect(await screen.findByRole('heading', { level: 1, name: 'Монитор' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Сохранённая копия от 03.11.2026 14:05 — нет связи');
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/environment-model/get-public-instruction?environmentModelId=5',
      expect.objectContaining({ credentials: 'same-origin' }),
    );

    fetchMock.mockResolvedValueOnce(instruction('Монитор пациента'));
    act(() => {
      window.dispatchEvent(new Event('online'));
    });

    expect(await screen.findByRole('heading', { level: 1, name: 'Монитор пациента' })).toBeInTheDocument();
    expect(screen.queryByText(/Сохранённая копия/)).not.toBeInTheDocument();
  });

  it('reads a saved copy again every 10 s, for a network that comes back without an online event', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const saved = { [savedAtHeader]: new Date(2026, 10, 3, 14, 5).toISOString() };
    fetchMock.mockResolvedValueOnce(instruction('Монитор', saved));
    await renderRoute('/short-instruction/5');
    expect(await screen.findByRole('status')).toBeInTheDocument();

    fetchMock.mockResolvedValueOnce(instruction('Монитор', saved));
    await act(() => vi.advanceTimersByTimeAsync(savedCopyRetryMs));
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(screen.getByRole('status')).toBeInTheDocument();

    fetchMock.mockResolvedValueOnce(instruction('Монитор пациента'));
    await act(() => vi.advanceTimersByTimeAsync(savedCopyRetryMs));
    expect(await screen.findByRole('heading', { level: 1, name: 'Монитор пациента' })).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    // The current copy is not read again on a timer.
    await act(() => vi.advanceTimersByTimeAsync(3 * savedCopyRetryMs));
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('keeps what it shows when a read on reconnecting fails', async () => {
    fetchMock.mockResolvedValueOnce(instruction('Монитор'));
    await renderRoute('/short-instruction/5');
    expect(await screen.findByRole('heading', { level: 1, name: 'Монитор' })).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();

    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    act(() => {
      window.dispatchEvent(new Event('online'));
    });

    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
    expect(screen.getByRole('heading', { level: 1, name: 'Монитор' })).toBeInTheDocument();
    expect(screen.queryByText('ОШИБКА')).not.toBeInTheDocument();
  });
});
