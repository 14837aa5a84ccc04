import { request } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { makeWorkspace, ROOT, runRalph, stopWhenDone } from '../helpers/workspace.ts';

/** One request to `address:port` carrying the given Host header (fetch may not set Host). */
function ask(o: {
  address: string;
  port: number;
  host: string;
  token?: string;
  method?: string;
  origin?: string;
}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: o.host };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.origin) headers.origin = o.origin;
    const req = request(
      {
        host: o.address,
        port: o.port,
        path: o.method === 'POST' ? '/run/none/action' : '/',
        method: o.method ?? 'GET',
        headers,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(o.method === 'POST' ? 'kind=stop' : undefined);
  });
}

/** A non-loopback IPv4 address of this machine, if it has one. */
const outward = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

async function dashboard(args: string[]) {
  const env = { XDG_STATE_HOME: makeWorkspace() };
  const d = await openDashboard({ track: stopWhenDone, env, args });
  return { ...d, port: Number(new URL(d.url).port) };
}

describe('dashboard: the Host check accepts what the server is bound to', () => {
  it('--host 0.0.0.0 --unsafe-expose answers to loopback names, the machine’s address and --allow-host; evil.example gets 421', async () => {
    const d = await dashboard(['--host', '0.0.0.0', '--unsafe-expose', '--allow-host', 'my.box']);
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(d.process.stderr()).toContain('answers to Host 0.0.0.0:');
    const at = (host: string, address = '127.0.0.1') => ask({ address, port: d.port, host, token: d.token });
    for (const host of ['127.0.0.1', 'localhost', '[::1]', hostname(), 'my.box', 'MY.BOX'])
      expect((await at(`${host}:${d.port}`)).status, host).toBe(200);
    if (outward) expect((await at(`${outward}:${d.port}`, outward)).status, outward).toBe(200);
    // DNS rebinding: a name that points at this machine is still not one of its names.
    const evil = await at(`evil.example:${d.port}`);
    expect(evil.status).toBe(421);
    expect(evil.body).toContain('unexpected Host');
    expect((await at(`my.box:${d.port + 1}`)).status).toBe(421);
    // The token is still needed whatever the Host.
    expect((await ask({ address: '127.0.0.1', port: d.port, host: `my.box:${d.port}` })).status).toBe(401);
    // A POST's Origin is checked against the same names: this one passes to the route (no such run).
    const post = (origin: string) =>
      ask({
        address: '127.0.0.1',
        port: d.port,
        host: `my.box:${d.port}`,
        token: d.token,
        method: 'POST',
        origin,
      });
    expect((await post(`http://my.box:${d.port}`)).status).toBe(404);
    expect((await post(`http://evil.example:${d.port}`)).status).toBe(403);
  }, 30_000);

  it('bound to loopback (the default): 127.0.0.1 and localhost, not the machine’s other names', async () => {
    const d = await dashboard([]);
    const at = (host: string) => ask({ address: '127.0.0.1', port: d.port, host, token: d.token });
    expect((await at(`127.0.0.1:${d.port}`)).status).toBe(200);
    expect((await at(`localhost:${d.port}`)).status).toBe(200);
    expect((await at(`evil.example:${d.port}`)).status).toBe(421);
    if (outward) expect((await at(`${outward}:${d.port}`)).status).toBe(421);
  }, 30_000);

  it('--allow-host with a URL or a port is refused with a clear message', async () => {
    const r = await runRalph(['dashboard', '--allow-host', 'http://my.box:8080'], ROOT, {
      XDG_STATE_HOME: makeWorkspace(),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--allow-host expects a host name or address without scheme or port');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
