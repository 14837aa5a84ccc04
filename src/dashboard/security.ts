import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

/** The cookie that carries the token after the first visit (HttpOnly, SameSite=Strict). */
export const TOKEN_COOKIE = 'ralph_dashboard';

/** A fresh random token for one start of the dashboard. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Hosts that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The cookie's value in a Cookie header, if present. */
export function cookieToken(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return value.join('=');
  }
  return undefined;
}

export interface RequestFacts {
  method: string;
  /** The Host header. */
  host: string | undefined;
  origin: string | undefined;
  /** `?token=` of the URL. */
  queryToken: string | undefined;
  cookie: string | undefined;
  /** The Authorization header (`Bearer <token>`: what Prometheus and scripts send). */
  authorization?: string | undefined;
}

/** The token of an `Authorization: Bearer <token>` header, if it is one. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

export type Verdict =
  | { ok: true; setCookie: boolean }
  | { ok: false; status: 400 | 401 | 403 | 421; message: string };

/**
 * Whether a request may proceed (pure). Host must be one the server answers to (no DNS
 * rebinding); the token must come with the URL (then a cookie is set), the cookie or an
 * `Authorization: Bearer` header; a request that
 * changes state must be a POST from the dashboard's own origin.
 */
export function checkRequest(
  r: RequestFacts,
  o: { token: string; allowedHosts: readonly string[] },
): Verdict {
  if (!r.host || !o.allowedHosts.includes(r.host.toLowerCase()))
    return { ok: false, status: 421, message: `unexpected Host ${JSON.stringify(r.host ?? '')}` };
  const fromCookie = cookieToken(r.cookie);
  const byQuery = r.queryToken !== undefined && sameSecret(r.queryToken, o.token);
  const byCookie = fromCookie !== undefined && sameSecret(fromCookie, o.token);
  const fromHeader = bearerToken(r.authorization);
  const byBearer = fromHeader !== undefined && sameSecret(fromHeader, o.token);
  if (!byQuery && !byCookie && !byBearer)
    return {
      ok: false,
      status: 401,
      message:
        'the dashboard needs its token: open the URL `ralph dashboard` printed (it carries ?token=…), or send `Authorization: Bearer <token>`',
    };
  if (r.method !== 'GET' && r.method !== 'HEAD') {
    if (r.method !== 'POST')
      return { ok: false, status: 400, message: `method ${r.method} is not used here` };
    // The page's own origin: one of the hosts the server answers to, over http.
    if (r.origin === undefined || !o.allowedHosts.includes(r.origin.toLowerCase().replace(/^http:\/\//, '')))
      return {
        ok: false,
        status: 403,
        message: `cross-origin request refused (Origin ${JSON.stringify(r.origin ?? '')})`,
      };
  }
  // A client that sends the header on every request (Prometheus, curl) needs no cookie.
  return { ok: true, setCookie: byQuery && !byCookie && !byBearer };
}

/** What the machine calls itself: its interfaces' addresses and its hostname (os.networkInterfaces, os.hostname). */
export interface MachineNames {
  addresses: readonly string[];
  hostname: string;
}

/** This machine's names, read from the OS (for a dashboard bound to every interface). */
export function localMachineNames(): MachineNames {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return { addresses, hostname: hostname() };
}

/** A bind address that listens on every interface. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** A name as a Host header spells it: lower case, IPv6 in brackets, without a zone (`%eth0`). */
function hostForm(name: string): string {
  const bare = name.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return isIPv6(bare.replace(/%.*$/, '')) ? `[${bare.replace(/%.*$/, '')}]` : bare;
}

/**
 * Host headers the server answers to (pure): the bind address; the loopback names when bound to
 * loopback or every interface; for every interface also the machine's addresses and hostname; and
 * the names given with `--allow-host`. Any other Host is refused (421), which defeats DNS rebinding.
 */
export function allowedHosts(
  bindHost: string,
  port: number,
  o: { machine?: MachineNames | undefined; extra?: readonly string[] | undefined } = {},
): string[] {
  const names = new Set([hostForm(bindHost)]);
  const add = (list: readonly string[]) => {
    for (const n of list) if (n !== '') names.add(hostForm(n));
  };
  if (isLoopback(hostForm(bindHost).replace(/^\[(.*)\]$/, '$1')) || isWildcard(bindHost))
    add(['127.0.0.1', 'localhost', '::1']);
  if (isWildcard(bindHost) && o.machine) add([...o.machine.addresses, o.machine.hostname]);
  add(o.extra ?? []);
  // On port 80 a browser leaves the port out of Host and Origin.
  return [...names].flatMap((n) => (port === 80 ? [`${n}:${port}`, n] : [`${n}:${port}`]));
}

/** An `--allow-host` value as a Host name, or undefined when it is not a bare name or address. */
export function allowHostName(value: string): string | undefined {
  const v = value.trim();
  if (isIPv6(v.replace(/^\[(.*)\]$/, '$1'))) return hostForm(v);
  return /^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/i.test(v) ? v.toLowerCase() : undefined;
}
