import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { fakeToken, signInAs } from '@/testing/session';

import { renewSession, type TurnTaker } from './auth-api';

/**
 * The gateway's refresh as the browser meets it: one cookie jar shared by the tabs, a
 * cookie that rotates on every use, and a rotated cookie presented again ending the session.
 * The cookie is read when the request leaves and replaced when the answer arrives.
 */
function refreshServer() {
  let jar = 'cookie-0';
  let current: string | null = jar;
  let issued = 0;
  const fetchMock = vi.fn<typeof fetch>(async () => {
    const presented = jar;
    await new Promise((answer) => setTimeout(answer, 5));
    if (current === null || presented !== current) {
      current = null;
      return Response.json(
        { success: false, data: null, errorMessage: 'Сессия истекла. Пожалуйста, войдите снова.' },
        { status: 401 },
      );
    }
    issued += 1;
    current = jar = `cookie-${issued}`;
    const accessToken = fakeToken({ iat: 1_800_000_000 + issued });
    return Response.json({ success: true, data: { accessToken, expiresIn: 900 }, errorMessage: null });
  });
  return { fetchMock, revoked: () => current === null };
}

/** The Web Locks API's promise for one lock name: callbacks run one after another. */
function fakeLocks(): TurnTaker {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    request<T>(_name: string, callback: () => Promise<T>): Promise<T> {
      const turn = queue.then(callback);
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

describe('renewing the session from several tabs', () => {
  let server: ReturnType<typeof refreshServer>;

  beforeEach(() => {
    server = refreshServer();
    vi.stubGlobal('fetch', server.fetchMock);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('tabs that take turns present the cookie once and both use the one new token', async () => {
    const stale = signInAs();
    const locks = fakeLocks();

    const [first, second] = await Promise.all([renewSession(stale, locks), renewSession(stale, locks)]);

    expect(server.fetchMock).toHaveBeenCalledOnce();
    expect(first).not.toBeNull();
    expect(second).toBe(first);
    expect(localStorage.getItem('token')).toBe(first);
    expect(server.revoked()).toBe(false);
  });

  it('a tab whose turn comes later still renews when nobody stored a newer token', async () => {
    const stale = signInAs();
    const locks = fakeLocks();

    const renewed = await renewSession(stale, locks);
    const again = await renewSession(renewed ?? undefined, locks);

    expect(server.fetchMock).toHaveBeenCalledTimes(2);
    expect(again).not.toBe(renewed);
    expect(server.revoked()).toBe(false);
  });

  it('without turns (no Web Locks) two tabs at once present one cookie twice and lose the session', async () => {
    const stale = signInAs();

    const results = await Promise.all([renewSession(stale, undefined), renewSession(stale, undefined)]);

    expect(server.fetchMock).toHaveBeenCalledTimes(2);
    expect(results).toContain(null);
    expect(server.revoked()).toBe(true);
  });
});
