import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { hasPrometheus, startPrometheus, type TestPrometheus } from '../helpers/prometheus.ts';
import { waitForValue } from '../helpers/wait.ts';
import {
  fakeConfig,
  makeWorkspace,
  type RalphProcess,
  readRecords,
  readState,
  runRalph,
} from '../helpers/workspace.ts';

const running: RalphProcess[] = [];
let prometheus: TestPrometheus | undefined;

afterEach(async () => {
  await prometheus?.stop();
  prometheus = undefined;
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.done;
  }
});

/** Three iterations of $0.25 and 1,100 tokens each; the run stops at max_iterations. */
function threeIterations(): string {
  return makeWorkspace({
    'PROMPT.md': 'go\n',
    'ralph.yml': fakeConfig({ max_iterations: 3 }),
    'fake-agent.yml': [
      'turns:',
      '  - do:',
      '      - assistant: "step {{iteration}}"',
      '        usage: { input_tokens: 1000, output_tokens: 100 }',
      '      - result: { text: "did step {{iteration}}", cost_usd: 0.25, input_tokens: 1000, output_tokens: 100 }',
    ].join('\n'),
  });
}

/** Polls `query` until it has a value (Prometheus scrapes every second). */
async function scraped(p: TestPrometheus, query: string, timeoutMs = 20_000): Promise<number> {
  return waitForValue(
    () => p.query(query),
    timeoutMs,
    () => `a value for ${query} within ${timeoutMs} ms; prometheus log:\n${p.log()}`,
  );
}

if (!hasPrometheus)
  it.skip('the Prometheus scrape test needs prometheus (apt-get install prometheus; .ci/run installs it)', () => {});

describe('dashboard /metrics', () => {
  it('answers a bearer token with the text format, refuses a wrong one, and --token-file keeps the token across starts', async () => {
    const env = { XDG_STATE_HOME: makeWorkspace() };
    const dir = makeWorkspace();
    const file = join(dir, 'secrets', 'dashboard-token');
    const first = await openDashboard({ track: (p) => running.push(p), env, args: ['--token-file', file] });
    expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const ok = await fetch(`${first.origin}/metrics`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.headers.get('set-cookie')).toBeNull();
    const text = await ok.text();
    expect(text).toContain('# TYPE ralph_build_info gauge');
    expect(text).toMatch(/^ralph_build_info\{version="[^"]+",node="v\d+[^"]*"\} 1$/m);
    const wrong = await fetch(`${first.origin}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('Bearer');
    expect((await fetch(`${first.origin}/metrics`)).status).toBe(401);

    const again = await openDashboard({ track: (p) => running.push(p), env, args: ['--token-file', file] });
    expect(again.token).toBe(first.token);

    writeFileSync(file, 'short\n');
    const bad = await runRalph(['dashboard', '--token-file', file], dir, env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(`the token file ${file} holds no usable token`);
  }, 60_000);

  it.skipIf(!hasPrometheus)(
    'a real Prometheus scraping it with the bearer token reads back the finished run’s cost, iterations, tokens, durations and stop',
    async () => {
      const env = { XDG_STATE_HOME: makeWorkspace() };
      const ws = threeIterations();
      expect((await runRalph(['run'], ws, env)).code).toBe(2);
      const state = readState(ws);
      expect(state.cost_usd).toBeCloseTo(0.75);
      const tokenFile = join(makeWorkspace(), 'token');
      const dashboard = await openDashboard({
        track: (p) => running.push(p),
        env,
        args: ['--token-file', tokenFile],
      });
      prometheus = await startPrometheus({
        target: new URL(dashboard.origin).host,
        credentialsFile: tokenFile,
      });
      const p = prometheus;
      const w = `workspace=${JSON.stringify(ws)}`;

      expect(await scraped(p, 'up{job="ralph"} == 1')).toBe(1);
      expect(await scraped(p, `sum(ralph_cost_usd_total{${w}})`)).toBeCloseTo(state.cost_usd, 9);
      expect(await scraped(p, `sum(ralph_iterations_total{${w}})`)).toBe(state.iterations);
      expect(state.iterations).toBe(3);
      expect(await scraped(p, `sum(ralph_iterations_total{${w},hat="",backend="fake"})`)).toBe(3);
      expect(await scraped(p, `sum(ralph_tokens_total{${w}})`)).toBe(state.tokens.total);
      expect(await scraped(p, `sum(ralph_iteration_duration_seconds_count{${w}})`)).toBe(3);
      const seconds = readRecords(ws).reduce((a, r) => a + r.duration_ms / 1000, 0);
      expect(await scraped(p, `sum(ralph_iteration_duration_seconds_sum{${w}})`)).toBeCloseTo(seconds, 6);
      expect(await scraped(p, `ralph_iteration_duration_seconds_bucket{${w},le="+Inf"}`)).toBe(3);
      expect(await scraped(p, `ralph_stops_total{${w},reason="max_iterations"}`)).toBe(1);
      expect(await scraped(p, `ralph_runs{${w},state="stopped"}`)).toBe(1);
      expect(await scraped(p, `sum(ralph_runs{${w}})`)).toBe(1);
    },
    90_000,
  );
});
