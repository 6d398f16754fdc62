import { Code, ConnectError } from '@connectrpc/connect';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';

import { errorMessage, isClientError, retryUnlessRefused } from './errors';
import { RestError } from './rest';

describe('errorMessage', () => {
  it("shows the server's message of an error status", () => {
    expect(errorMessage(new ConnectError('Курс не найден', Code.NotFound))).toBe('Курс не найден');
  });

  it("shows a REST envelope's message, and counts a 4xx one as a refusal", () => {
    const refused = new RestError(409, 'Внешняя система с таким названием уже есть');
    expect(errorMessage(refused)).toBe('Внешняя система с таким названием уже есть');
    expect(isClientError(refused)).toBe(true);
    expect(isClientError(new RestError(503, 'Сервис недоступен'))).toBe(false);
  });

  it('falls back to the default text for anything else', () => {
    expect(errorMessage(new TypeError('Failed to fetch'))).toBe('Произошла ошибка при загрузке данных');
    expect(errorMessage(new ConnectError('', Code.Unavailable))).toBe('Произошла ошибка при загрузке данных');
  });
});

describe('isClientError', () => {
  it('is true for refusals a repeat cannot change', () => {
    for (const code of [Code.NotFound, Code.PermissionDenied, Code.InvalidArgument, Code.Unauthenticated]) {
      expect(isClientError(new ConnectError('Отказано', code))).toBe(true);
    }
    expect(isClientError({ ok: false, status: 404, message: 'Модель оборудования не найдена' })).toBe(true);
    expect(isClientError({ ok: false, status: 403, message: 'У вас нет доступа к данному ресурсу' })).toBe(
      true,
    );
  });

  it('is false for server and network failures, which may pass', () => {
    for (const code of [Code.Unavailable, Code.Internal, Code.Unknown, Code.DeadlineExceeded]) {
      expect(isClientError(new ConnectError('Сбой', code))).toBe(false);
    }
    expect(isClientError({ ok: false, status: 0, message: 'Сеть' })).toBe(false);
    expect(isClientError({ ok: false, status: 500, message: 'Сбой' })).toBe(false);
    expect(isClientError(new TypeError('Failed to fetch'))).toBe(false);
  });
});

describe('retryUnlessRefused', () => {
  const client = () =>
    new QueryClient({ defaultOptions: { queries: { retry: retryUnlessRefused, retryDelay: 0 } } });

  it('asks once when the server refused the request', async () => {
    const call = vi.fn(() => Promise.reject(new ConnectError('Отделение не найдено', Code.NotFound)));
    await expect(client().query({ queryKey: ['department', 5], queryFn: call })).rejects.toThrow();
    expect(call).toHaveBeenCalledOnce();
  });

  it('asks again, up to three times more, when the server or network failed', async () => {
    const call = vi.fn(() => Promise.reject(new ConnectError('Сбой', Code.Unavailable)));
    await expect(client().query({ queryKey: ['department', 1], queryFn: call })).rejects.toThrow();
    expect(call).toHaveBeenCalledTimes(4);
  });
});
