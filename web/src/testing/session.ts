import { startSession } from '@/lib/session/session';
import type { TokenClaims } from '@/lib/session/token';

const base64Url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** An unsigned JWT-shaped token with these claims (the client never checks signatures). */
export function fakeToken(claims: Partial<TokenClaims> = {}): string {
  const payload = {
    sub: '7',
    login: 'nurse',
    name: 'Ольга',
    surname: 'Смирнова',
    lastName: 'Викторовна',
    rights: [],
    departments: [1, 2],
    iat: 1_800_000_000,
    exp: 1_800_000_900,
    ...claims,
  };
  return [base64Url('{"alg":"EdDSA","typ":"JWT"}'), base64Url(JSON.stringify(payload)), 'signature'].join(
    '.',
  );
}

/** Starts a session in localStorage as the app's sign-in would. */
export function signInAs(claims: Partial<TokenClaims> = {}): string {
  const token = fakeToken(claims);
  if (!startSession(token)) throw new Error('fakeToken made a token that does not decode');
  return token;
}
