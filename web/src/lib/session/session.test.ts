import { afterEach, describe, expect, it, vi } from 'vitest';

import { notify } from '@/lib/notifications';
import { fakeToken } from '@/testing/session';

import { endSession, expireSession, getSession, startSession, subscribeSession } from './session';

vi.mock('@/lib/notifications', () => ({ notify: { error: vi.fn(), success: vi.fn() } }));

describe('session', () => {
  afterEach(() => vi.mocked(notify.error).mockClear());

  it('signing in stores token and decodedToken and drops an old refreshToken', () => {
    localStorage.setItem('refreshToken', 'left by an older client');
    const token = fakeToken({ sub: '5', login: 'doctor' });

    expect(startSession(token)).toBe(true);
    expect(localStorage.getItem('token')).toBe(token);
    expect(JSON.parse(localStorage.getItem('decodedToken') ?? 'null')).toMatchObject({
      sub: '5',
      login: 'doctor',
    });
    expect(localStorage.getItem('refreshToken')).toBeNull();
    expect(getSession()).toMatchObject({ token, user: { login: 'doctor' } });
  });

  it('a token that cannot be decoded is not stored', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(startSession('garbage')).toBe(false);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('a stored token that cannot be decoded means nobody is signed in', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    localStorage.setItem('token', 'garbage');
    expect(getSession()).toBeNull();
  });

  it('signing out clears token, decodedToken and refreshToken and tells subscribers', () => {
    startSession(fakeToken());
    localStorage.setItem('refreshToken', 'old');
    const listener = vi.fn();
    const unsubscribe = subscribeSession(listener);

    endSession();
    unsubscribe();

    expect(localStorage.length).toBe(0);
    expect(getSession()).toBeNull();
    expect(listener).toHaveBeenCalledOnce();
  });

  it('an expired session ends with one message, however many calls found out', () => {
    startSession(fakeToken());
    expireSession();
    expireSession();

    expect(getSession()).toBeNull();
    expect(notify.error).toHaveBeenCalledExactlyOnceWith('Сессия истекла. Пожалуйста, войдите снова.');
  });
});
