import { afterEach, describe, expect, it, vi } from 'vitest';

import { fakeToken } from '@/testing/session';

import { decodeToken } from './token';

describe('decodeToken', () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  afterEach(() => logged.mockClear());

  it('reads the claims of an access token, Cyrillic names included', () => {
    const claims = decodeToken(
      fakeToken({ sub: '12', name: 'Ольга', rights: ['EducationManagement'], departments: [1, 2] }),
    );
    expect(claims).toMatchObject({
      sub: '12',
      name: 'Ольга',
      surname: 'Смирнова',
      rights: ['EducationManagement'],
      departments: [1, 2],
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('reads base64url characters (- and _) in the payload', () => {
    // '?>' and '~~~' encode to base64 with '/' and '+': base64url turns them into '_' and '-'.
    const token = fakeToken({ login: '?>?>~~~' });
    expect(token.split('.')[1]).toMatch(/[-_]/);
    expect(decodeToken(token)?.login).toBe('?>?>~~~');
  });

  it.each([
    ['a value that is not a string', 42],
    ['undefined', undefined],
    ['a token without a payload part', 'header-only'],
    ['a token with an empty payload part', 'header..signature'],
    ['a payload that is not base64', 'header.!!!not*base64!!!.signature'],
    ['a payload that is not UTF-8', `header.${btoa('\xff\xfe\xfd')}.signature`],
    ['a payload that is not JSON', `header.${btoa('not json')}.signature`],
    ['a payload that is a JSON array', `header.${btoa('[1,2]')}.signature`],
    ['a payload without a user (sub)', `header.${btoa('{"login":"nurse"}')}.signature`],
  ])('rejects %s, logging why', (_, token) => {
    expect(decodeToken(token)).toBeNull();
    expect(logged).toHaveBeenCalledOnce();
  });

  it('keeps only well-formed rights and department ids', () => {
    const token = `header.${btoa(JSON.stringify({ sub: '1', rights: ['UserManagement', 3], departments: [1, 'x', 2.5] }))}.s`;
    expect(decodeToken(token)).toMatchObject({ rights: ['UserManagement'], departments: [1] });
  });
});
