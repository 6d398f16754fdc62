/** What the client reads from an access token (DESIGN §6); the server checks the signature. */
export type TokenClaims = {
  /** The user id, as a string. */
  sub: string;
  login: string;
  name: string;
  surname: string;
  /** Patronymic (отчество). */
  lastName: string;
  rights: string[];
  departments: number[];
  iat: number;
  exp: number;
};

class TokenError extends Error {}

function payloadPart(token: unknown): string {
  if (typeof token !== 'string') throw new TokenError('the token is not a string');
  const payload = token.split('.')[1];
  if (!payload) throw new TokenError('the token has no payload part');
  return payload;
}

// JWT parts are base64url without padding; atob takes base64 and refuses anything else.
function decodeBase64Url(part: string): string {
  let binary: string;
  try {
    binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  } catch (cause) {
    throw new TokenError('the payload is not base64', { cause });
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  try {
    // Names in the claims are Cyrillic: the payload is UTF-8, not Latin-1.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new TokenError('the payload is not UTF-8', { cause });
  }
}

function parseJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new TokenError('the payload is not JSON', { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TokenError('the payload is not a JSON object');
  }
  return value as Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const count = (value: unknown) => (typeof value === 'number' ? value : 0);
const list = <T>(value: unknown, keep: (item: unknown) => item is T): T[] =>
  Array.isArray(value) ? value.filter(keep) : [];
const isString = (item: unknown): item is string => typeof item === 'string';
const isId = (item: unknown): item is number => Number.isInteger(item);

/**
 * Reads the claims of an access token without verifying it (spec §5): a value that is not a
 * string, lacks the payload part, or whose payload is not base64 JSON is logged and gives
 * null, which the portal treats as nobody being signed in.
 */
export function decodeToken(token: unknown): TokenClaims | null {
  try {
    const claims = parseJson(decodeBase64Url(payloadPart(token)));
    if (typeof claims.sub !== 'string' || claims.sub === '') {
      throw new TokenError('the payload names no user (sub)');
    }
    return {
      sub: claims.sub,
      login: text(claims.login),
      name: text(claims.name),
      surname: text(claims.surname),
      lastName: text(claims.lastName),
      rights: list(claims.rights, isString),
      departments: list(claims.departments, isId),
      iat: count(claims.iat),
      exp: count(claims.exp),
    };
  } catch (error) {
    console.error('Access token rejected:', error);
    return null;
  }
}
