import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedHosts, allowHostName, bearerToken, checkRequest } from '../../../src/dashboard/security.ts';

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

describe('dashboard Host check: the names it is bound to', () => {
  const machine = { addresses: ['127.0.0.1', '::1', '192.168.1.20', 'fe80::1%eth0'], hostname: 'Build-Box' };
  const verdict = (hosts: string[], host: string, method = 'GET', origin?: string) =>
    checkRequest(
      { method, host, origin, queryToken: undefined, cookie: undefined, authorization: 'Bearer t' },
      { token: 't', allowedHosts: hosts },
    );

  it('bound to loopback: 127.0.0.1, localhost and [::1] (and the loopback address it is bound to)', () => {
    expect(allowedHosts('127.0.0.1', 8080, { machine })).toEqual([
      '127.0.0.1:8080',
      'localhost:8080',
      '[::1]:8080',
    ]);
    expect(allowedHosts('::1', 8080)).toEqual(['[::1]:8080', '127.0.0.1:8080', 'localhost:8080']);
    expect(allowedHosts('127.0.0.5', 8080)).toContain('127.0.0.5:8080');
    // The machine's other names are not loopback's: a loopback dashboard does not answer to them.
    expect(allowedHosts('127.0.0.1', 8080, { machine })).not.toContain('192.168.1.20:8080');
  });

  it('bound to every interface: loopback names, the machine’s addresses and hostname, and --allow-host', () => {
    for (const bind of ['0.0.0.0', '::']) {
      const hosts = allowedHosts(bind, 8080, { machine, extra: ['my.box'] });
      for (const ok of [
        '127.0.0.1:8080',
        'localhost:8080',
        '[::1]:8080',
        '192.168.1.20:8080',
        '[fe80::1]:8080',
        'build-box:8080',
        'my.box:8080',
        'MY.BOX:8080',
      ])
        expect(verdict(hosts, ok), ok).toEqual({ ok: true, setCookie: false });
      for (const bad of [
        'evil.example:8080',
        '192.168.1.20:8081',
        'my.box',
        'build-box.evil.example:8080',
        '',
      ])
        expect(verdict(hosts, bad), bad).toMatchObject({ ok: false, status: 421 });
    }
  });

  it('the Origin of a POST is checked against the same list', () => {
    const hosts = allowedHosts('0.0.0.0', 8080, { machine, extra: ['my.box'] });
    for (const origin of ['http://192.168.1.20:8080', 'http://my.box:8080', 'http://localhost:8080'])
      expect(verdict(hosts, '127.0.0.1:8080', 'POST', origin), origin).toEqual({
        ok: true,
        setCookie: false,
      });
    for (const origin of ['http://evil.example:8080', 'https://my.box.evil:8080', 'null'])
      expect(verdict(hosts, '127.0.0.1:8080', 'POST', origin)).toMatchObject({ ok: false, status: 403 });
  });

  it('a Host outside the list is refused, whatever the list (property)', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    fc.assert(
      fc.property(
        fc.array(label, { maxLength: 4 }),
        label,
        fc.integer({ min: 1, max: 65535 }),
        (extra, other, port) => {
          fc.pre(!extra.includes(other) && other !== 'localhost' && other !== 'build-box');
          const hosts = allowedHosts('0.0.0.0', port, { machine, extra });
          expect(verdict(hosts, `${other}.evil.example:${port}`)).toMatchObject({ status: 421 });
          expect(verdict(hosts, `${other}:${port}`)).toMatchObject({ status: 421 });
          for (const name of extra) expect(verdict(hosts, `${name}:${port}`).ok).toBe(true);
        },
      ),
    );
  });

  it('--allow-host takes a bare name or address, never a URL or a port', () => {
    expect(allowHostName('My.Box')).toBe('my.box');
    expect(allowHostName('192.168.1.20')).toBe('192.168.1.20');
    expect(allowHostName('::1')).toBe('[::1]');
    expect(allowHostName('[fd00::2]')).toBe('[fd00::2]');
    for (const bad of ['http://my.box', 'my.box:8080', 'my box', '', '*.example', 'a/b'])
      expect(allowHostName(bad), bad).toBeUndefined();
  });
});
