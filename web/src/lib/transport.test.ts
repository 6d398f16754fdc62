import { Code, createClient } from '@connectrpc/connect';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';

import { createPortalTransport } from './transport';

describe('the grpc-web transport', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('an unreachable gateway gives the spec’s request-failure message', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    const auth = createClient(AuthService, createPortalTransport('http://127.0.0.1:9'));

    await expect(auth.getMe({})).rejects.toMatchObject({
      code: Code.Unavailable,
      rawMessage: 'Произошла ошибка при выполнении запроса. Пожалуйста, попробуйте позже.',
    });
  });
});
