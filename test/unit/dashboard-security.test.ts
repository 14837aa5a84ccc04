import { describe, expect, it } from 'vitest';
import { bearerToken, checkRequest } from '../../src/dashboard/security.ts';

const o = { token: 'a-token-of-the-dashboard', allowedHosts: ['127.0.0.1:8080'] };
const get = (authorization: string | undefined, method = 'GET', origin?: string) =>
  checkRequest(
    { method, host: '127.0.0.1:8080', origin, queryToken: undefined, cookie: undefined, authorization },
    o,
  );

describe('dashboard token: Authorization: Bearer', () => {
  it('lets a request with the right bearer token through without setting a cookie', () => {
    expect(get('Bearer a-token-of-the-dashboard')).toEqual({ ok: true, setCookie: false });
    expect(get('bearer   a-token-of-the-dashboard ')).toEqual({ ok: true, setCookie: false });
  });

  it('refuses a wrong, empty or non-bearer header with 401, and says how to send the token', () => {
    for (const header of [
      'Bearer nope',
      'Bearer ',
      'Basic a-token-of-the-dashboard',
      'a-token-of-the-dashboard',
      undefined,
    ]) {
      const v = get(header);
      expect(v).toMatchObject({ ok: false, status: 401 });
      expect(v.ok === false && v.message).toContain('Authorization: Bearer');
    }
    expect(bearerToken('Bearer x y')).toBeUndefined();
  });

  it('a bearer token does not lift the Origin rule: a POST still needs the dashboard’s own origin', () => {
    expect(get('Bearer a-token-of-the-dashboard', 'POST')).toMatchObject({ ok: false, status: 403 });
    expect(get('Bearer a-token-of-the-dashboard', 'POST', 'http://evil.example')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(get('Bearer a-token-of-the-dashboard', 'POST', 'http://127.0.0.1:8080')).toEqual({
      ok: true,
      setCookie: false,
    });
  });
});
