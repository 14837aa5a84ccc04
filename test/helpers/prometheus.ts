import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { waitForValue } from './wait.ts';

/** Whether Debian's `prometheus` is installed (CI installs it; see .ci/run). */
export const hasPrometheus = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;

/** A Prometheus of one test: loopback only, a free port, its storage in a temp dir. */
export interface TestPrometheus {
  url: string;
  /** An instant query's first value (`/api/v1/query`), or undefined when it has no result yet. */
  query(promql: string): Promise<number | undefined>;
  /** Its log so far (for a failure's message). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `prometheus` scraping `target` (host:port) at `/metrics` every `intervalSeconds`, sending
 * the token of `credentialsFile` as `Authorization: Bearer`. It reaches nothing but the target:
 * no alerting, no remote write, no other scrape job.
 */
export async function startPrometheus(o: {
  target: string;
  credentialsFile: string;
  intervalSeconds?: number;
}): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-prometheus-'));
  const port = await freePort();
  const every = `${o.intervalSeconds ?? 1}s`;
  const config = [
    'global:',
    `  scrape_interval: ${every}`,
    `  scrape_timeout: ${every}`,
    `  evaluation_interval: ${every}`,
    'scrape_configs:',
    '  - job_name: ralph',
    '    authorization:',
    '      type: Bearer',
    `      credentials_file: ${JSON.stringify(o.credentialsFile)}`,
    '    static_configs:',
    `      - targets: [${JSON.stringify(o.target)}]`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  let output = '';
  // Its own process group, so stop() ends it and anything it started.
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
  child.stderr?.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      const late = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(late);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready, or exited (the wait ends at once then), or 20 s passed.
  const ready = await waitForValue(
    async () =>
      (await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )) || (child.exitCode !== null ? 'exited' : undefined),
    20_000,
    'prometheus',
  ).catch(() => 'timed out');
  if (ready !== true) {
    await stop();
    throw new Error(`prometheus did not become ready on ${url}:\n${output}`);
  }
  return {
    url,
    log: () => output,
    stop,
    async query(promql) {
      const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await r.json()) as {
        status: string;
        error?: string;
        data?: { result: { value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${body.error ?? r.status}`);
      const first = body.data?.result[0];
      return first ? Number(first.value[1]) : undefined;
    },
  };
}
