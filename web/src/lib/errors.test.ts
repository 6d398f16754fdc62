import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';

import { errorMessage } from './errors';

describe('errorMessage', () => {
  it("shows the server's message of an error status", () => {
    expect(errorMessage(new ConnectError('Курс не найден', Code.NotFound))).toBe('Курс не найден');
  });

  it('falls back to the default text for anything else', () => {
    expect(errorMessage(new TypeError('Failed to fetch'))).toBe('Произошла ошибка при загрузке данных');
    expect(errorMessage(new ConnectError('', Code.Unavailable))).toBe('Произошла ошибка при загрузке данных');
  });
});
