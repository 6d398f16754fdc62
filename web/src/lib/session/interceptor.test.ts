import { Code, ConnectError, type UnaryRequest, type UnaryResponse } from '@connectrpc/connect';
import { describe, expect, it, vi } from 'vitest';

import { createAuthInterceptor } from './interceptor';

const unauthenticated = () =>
  new ConnectError('Сессия истекла. Пожалуйста, войдите снова.', Code.Unauthenticated);
const ok = { message: 'ok' } as unknown as UnaryResponse;
const request = () => ({ header: new Headers() }) as UnaryRequest;

/**
 * A fake transport step: answers with `outcomes` in turn (the last one repeats, a function
 * is awaited) and records the Authorization header each call was sent with.
 */
function fakeNext(...outcomes: (UnaryResponse | Error | (() => Promise<UnaryResponse>))[]) {
  const sent: (string | null)[] = [];
  const next = vi.fn(async (call: { header: Headers }): Promise<UnaryResponse> => {
    sent.push(call.header.get('Authorization'));
    const outcome = outcomes.length > 1 ? outcomes.shift() : outcomes[0];
    if (outcome === undefined) return ok;
    if (outcome instanceof Error) throw outcome;
    return typeof outcome === 'function' ? outcome() : outcome;
  });
  return { next, sent };
}

/** An interceptor around a session whose token `refresh` replaces. */
function setup(refreshed: string | null = 'new-token') {
  let token: string | undefined = 'old-token';
  const deps = {
    getToken: () => token,
    refresh: vi.fn<(stale: string | undefined) => Promise<string | null>>(async () => {
      await Promise.resolve();
      if (refreshed !== null) token = refreshed;
      return refreshed;
    }),
    onExpired: vi.fn(() => {
      token = undefined;
    }),
  };
  return { deps, interceptor: createAuthInterceptor(deps) };
}

describe('the session interceptor', () => {
  it('sends the access token as a bearer token', async () => {
    const { interceptor } = setup();
    const { next, sent } = fakeNext(ok);

    await expect(interceptor(next)(request())).resolves.toBe(ok);
    expect(sent).toEqual(['Bearer old-token']);
  });

  it('sends no authorization without a session', async () => {
    const interceptor = createAuthInterceptor({
      getToken: () => undefined,
      refresh: vi.fn(),
      onExpired: vi.fn(),
    });
    const { next, sent } = fakeNext(ok);

    await interceptor(next)(request());
    expect(sent).toEqual([null]);
  });

  it('on Unauthenticated refreshes once and repeats the call with the new token', async () => {
    const { deps, interceptor } = setup();
    const { next, sent } = fakeNext(unauthenticated(), ok);

    await expect(interceptor(next)(request())).resolves.toBe(ok);
    expect(deps.refresh).toHaveBeenCalledExactlyOnceWith('old-token');
    expect(sent).toEqual(['Bearer old-token', 'Bearer new-token']);
    expect(deps.onExpired).not.toHaveBeenCalled();
  });

  it('calls that fail together share one refresh', async () => {
    const { deps, interceptor } = setup();
    const calls = [1, 2, 3].map(() => fakeNext(unauthenticated(), ok));

    const results = await Promise.all(calls.map(({ next }) => interceptor(next)(request())));
    expect(results).toEqual([ok, ok, ok]);
    expect(deps.refresh).toHaveBeenCalledOnce();
    for (const { sent } of calls) expect(sent).toEqual(['Bearer old-token', 'Bearer new-token']);
  });

  it('a call sent with a token replaced meanwhile is repeated without another refresh', async () => {
    const { deps, interceptor } = setup();
    let failSlowCall: () => void = () => undefined;
    const slow = fakeNext(
      () => new Promise((_, reject) => (failSlowCall = () => reject(unauthenticated()))),
      ok,
    );
    const slowCall = interceptor(slow.next)(request());

    await interceptor(fakeNext(unauthenticated(), ok).next)(request());
    failSlowCall();

    await expect(slowCall).resolves.toBe(ok);
    expect(deps.refresh).toHaveBeenCalledOnce();
    expect(slow.sent).toEqual(['Bearer old-token', 'Bearer new-token']);
  });

  it('signs out when the refresh is refused', async () => {
    const { deps, interceptor } = setup(null);
    const failure = unauthenticated();
    const { next } = fakeNext(failure);

    await expect(interceptor(next)(request())).rejects.toBe(failure);
    expect(next).toHaveBeenCalledOnce();
    expect(deps.onExpired).toHaveBeenCalledOnce();
  });

  it('signs out when the repeated call is refused too, and does not refresh again', async () => {
    const { deps, interceptor } = setup();
    const { next } = fakeNext(unauthenticated());

    await expect(interceptor(next)(request())).rejects.toMatchObject({ code: Code.Unauthenticated });
    expect(next).toHaveBeenCalledTimes(2);
    expect(deps.refresh).toHaveBeenCalledOnce();
    expect(deps.onExpired).toHaveBeenCalledOnce();
  });

  it('passes other errors through without a refresh', async () => {
    const { deps, interceptor } = setup();
    const denied = new ConnectError('У вас нет доступа к данному ресурсу', Code.PermissionDenied);

    await expect(interceptor(fakeNext(denied).next)(request())).rejects.toBe(denied);
    expect(deps.refresh).not.toHaveBeenCalled();
    expect(deps.onExpired).not.toHaveBeenCalled();
  });

  it('keeps the session when the refresh cannot reach the server', async () => {
    const { deps, interceptor } = setup();
    const offline = new ConnectError('Произошла ошибка при выполнении запроса.', Code.Unavailable);
    deps.refresh.mockRejectedValueOnce(offline);

    await expect(interceptor(fakeNext(unauthenticated()).next)(request())).rejects.toBe(offline);
    expect(deps.onExpired).not.toHaveBeenCalled();
  });
});
