import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { waitFor } from './wait.ts';

/** Whether Debian's `redis-server` is installed (CI installs it; see .ci/run). */
export const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** Resolves once something answers PING on the port. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const pong = () =>
    new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
      socket.once('data', (b) => {
        socket.destroy();
        resolve(b.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
  await waitFor(pong, timeoutMs, `redis-server to answer on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

/** A redis-server of one test: loopback, a free port, AOF (fsync always) in a temp dir. */
export interface TestRedis {
  url: string;
  port: number;
  /** kill -9 (AOF keeps what was written). */
  kill9(): Promise<void>;
  /** Starts it again on the same port and directory. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    // fsync always: a kill -9 loses nothing, so the tests' expectations are exact.
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes'];
    args.push('--appendfsync', 'always', '--save', '');
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPong(port, 10_000);
  };
  const kill = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill(signal);
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill9: () => kill('SIGKILL'),
    restart: launch,
    stop: async () => {
      await kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
