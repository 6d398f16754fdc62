import { act, render, screen, waitForElementToBeRemoved } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { notify } from '@/lib/notifications';

import { AppProvider } from './provider';

// Whether notistack was loaded, and what it was asked to show. Nothing here imports it.
const notistack = vi.hoisted(() => ({ loaded: false, enqueueSnackbar: vi.fn() }));

vi.mock('notistack', async (importOriginal) => {
  notistack.loaded = true;
  const actual = await importOriginal<typeof import('notistack')>();
  // Read through the namespace on each call: notistack rebinds enqueueSnackbar when a provider mounts.
  return {
    ...actual,
    enqueueSnackbar: (...args: Parameters<typeof actual.enqueueSnackbar>) => {
      notistack.enqueueSnackbar(...args);
      return actual.enqueueSnackbar(...args);
    },
  };
});

const { enqueueSnackbar } = notistack;

describe('notify', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    // The app's own host: notistack loads with the first toast, which must not be lost meanwhile.
    render(
      <AppProvider>
        <p>Страница</p>
      </AppProvider>,
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    enqueueSnackbar.mockClear();
  });

  // First: the module stays loaded for the tests after it.
  it('loads notistack with the first toast, not with the page', async () => {
    await act(() => vi.advanceTimersByTimeAsync(100));
    expect(notistack.loaded).toBe(false);
    act(() => {
      notify.success('Готово');
    });
    expect(await screen.findByText('Готово')).toBeVisible();
    expect(notistack.loaded).toBe(true);
  });

  it('shows an error at the top centre for 6 seconds', async () => {
    act(() => {
      notify.error('Не удалось');
    });
    expect(await screen.findByText('Не удалось')).toBeVisible();
    expect(enqueueSnackbar).toHaveBeenCalledWith(
      'Не удалось',
      expect.objectContaining({
        variant: 'error',
        autoHideDuration: 6000,
        anchorOrigin: { vertical: 'top', horizontal: 'center' },
      }),
    );

    await act(() => vi.advanceTimersByTimeAsync(5500));
    expect(screen.getByText('Не удалось')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    await waitForElementToBeRemoved(() => screen.queryByText('Не удалось'));
  });

  it('shows a success at the bottom right for 3 seconds', async () => {
    act(() => {
      notify.success('Сохранено');
    });
    expect(await screen.findByText('Сохранено')).toBeVisible();
    expect(enqueueSnackbar).toHaveBeenCalledWith(
      'Сохранено',
      expect.objectContaining({
        variant: 'success',
        autoHideDuration: 3000,
        anchorOrigin: { vertical: 'bottom', horizontal: 'right' },
      }),
    );

    await act(() => vi.advanceTimersByTimeAsync(2500));
    expect(screen.getByText('Сохранено')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1000));
    await waitForElementToBeRemoved(() => screen.queryByText('Сохранено'));
  });

  it('a click elsewhere does not close a toast', async () => {
    act(() => {
      notify.error('Ошибка сервера');
    });
    await screen.findByText('Ошибка сервера');

    await userEvent.click(screen.getByText('Страница'));
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(screen.getByText('Ошибка сервера')).toBeInTheDocument();
  });

  it('shows one toast for the same failure told twice at once', async () => {
    act(() => {
      // A page and its breadcrumb both load the department a person may not see.
      notify.error('У вас нет доступа к данному ресурсу');
      notify.error('У вас нет доступа к данному ресурсу');
    });
    await screen.findByText('У вас нет доступа к данному ресурсу');
    await act(() => vi.advanceTimersByTimeAsync(500));
    expect(screen.getAllByText('У вас нет доступа к данному ресурсу')).toHaveLength(1);
  });
});
