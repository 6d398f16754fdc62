import { fetchRest, postRest } from '@/lib/rest';
import { strings } from '@/lib/strings';

import { startSession } from './session';

// Apart from the other session calls (./auth-api) because the sign-in page is the first
// page of most visits: it must not load the grpc-web client that the refresh speaks to.

/** What the gateway answers to a sign-in or a refresh (the refresh token is in a cookie). */
export type AccessToken = { accessToken: string; expiresIn: number };

/** A sign-in's answer: a session, or (two-step sign-in, issue 39.4) the second step's token. */
type SignInAnswer = AccessToken & { mfaRequired?: boolean; mfaToken?: string };

export type SignInResult =
  { ok: true } | { ok: false; message: string } | { ok: false; message: ''; mfaToken: string };

/** Signs in and stores the session; a failure carries the server's message for the alert. */
export async function signIn(login: string, password: string): Promise<SignInResult> {
  const result = await postRest<SignInAnswer>('/api/auth/login', { login, password });
  if (!result.ok) return { ok: false, message: result.message };
  if (result.data.mfaRequired) return { ok: false, message: '', mfaToken: result.data.mfaToken ?? '' };
  if (!startSession(result.data.accessToken)) return { ok: false, message: strings.errors.network };
  return { ok: true };
}

/** The second step: a code for the first step's token; the session as `signIn` stores it. */
export async function finishSignIn(mfaToken: string, code: string): Promise<SignInResult> {
  const result = await postRest<AccessToken>('/api/auth/login-mfa', { mfaToken, code });
  if (!result.ok) return { ok: false, message: result.message };
  if (!startSession(result.data.accessToken)) return { ok: false, message: strings.errors.network };
  return { ok: true };
}

/**
 * The name of the hospital's single sign-on provider (issue 39.2) for «Войти через …»; empty
 * when there is none or the server could not say.
 */
export async function singleSignOnName(): Promise<string> {
  const result = await fetchRest<{ ssoName: string }>('/api/auth/sign-in-options');
  return result.ok ? result.data.ssoName : '';
}

/**
 * After single sign-on the gateway has set the session's refresh cookie; this takes the access
 * token with it and stores the session. False when there is none after all.
 */
export async function resumeSingleSignOn(): Promise<boolean> {
  const result = await postRest<AccessToken>('/api/auth/refresh-token');
  return result.ok && startSession(result.data.accessToken);
}
