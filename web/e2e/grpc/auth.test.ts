// grpc-web from JavaScript to the real gateway, through the client's own transport:
// proves the generated descriptors, the binary grpc-web framing and error statuses
// (trailers-only responses) all survive the trip.
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { describe, expect, inject, it } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { createPortalTransport } from '@/lib/transport';

import { adminLogin, adminPassword } from '../support/portal-server';

const auth = createClient(AuthService, createPortalTransport(inject('portalUrl')));

describe('AuthService over grpc-web', () => {
  it('a wrong password arrives as Code.Unauthenticated with the Russian message', async () => {
    const error: unknown = await auth.login({ login: adminLogin, password: 'not-the-password' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ConnectError);
    expect(error).toMatchObject({ code: Code.Unauthenticated, rawMessage: 'Неверный логин или пароль' });
  });

  it('the bootstrap admin signs in and receives an access token, never the cookie tokens', async () => {
    const response = await auth.login({ login: adminLogin, password: adminPassword });
    expect(response.accessToken).not.toBe('');
    // The refresh and device tokens travel as HttpOnly cookies (issue 19).
    expect(response.refreshToken).toBe('');
    expect(response.deviceToken).toBe('');
  });
});
