import { useSyncExternalStore } from 'react';

import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { dropAllDrafts } from './drafts';
import { decodeToken, type TokenClaims } from './token';

// Spec §9's localStorage keys. The refresh token now lives in the HttpOnly cookie
// `portal_refresh`, out of reach of scripts; a `refreshToken` left by an older client is removed.
const tokenKey = 'token';
const decodedTokenKey = 'decodedToken';
const legacyRefreshTokenKey = 'refreshToken';

export type Session = { token: string; user: TokenClaims };

// `token` is the source of truth; `decodedToken` is written beside it as spec §4 asks.
// The decoded session is kept per token string, so readers get a stable object.
let cache: { token: string | null; session: Session | null } = { token: null, session: null };

/** The signed-in user, or null when signed out (no token, or one that cannot be decoded). */
export function getSession(): Session | null {
  const token = localStorage.getItem(tokenKey);
  if (token !== cache.token) {
    const user = token === null ? null : decodeToken(token);
    cache = { token, session: token !== null && user !== null ? { token, user } : null };
  }
  return cache.session;
}

const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

/** Stores a new access token (sign-in or refresh); false if it cannot be decoded. */
export function startSession(token: string): boolean {
  const user = decodeToken(token);
  if (user === null) return false;
  localStorage.setItem(tokenKey, token);
  localStorage.setItem(decodedTokenKey, JSON.stringify(user));
  localStorage.removeItem(legacyRefreshTokenKey);
  emit();
  return true;
}

/** Forgets the session on this device (sign-out, or a session that could not be renewed). */
export function endSession() {
  localStorage.removeItem(tokenKey);
  localStorage.removeItem(decodedTokenKey);
  localStorage.removeItem(legacyRefreshTokenKey);
  dropAllDrafts();
  emit();
}

/** Ends a session the server no longer accepts and says so, once however many calls failed. */
export function expireSession() {
  if (getSession() === null) return;
  endSession();
  notify.error(strings.session.expired);
}

/** Calls `listener` whenever the session changes, in this tab or another one. */
export function subscribeSession(listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key === tokenKey) listener();
  };
  listeners.add(listener);
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useSession(): Session | null {
  return useSyncExternalStore(subscribeSession, getSession);
}
