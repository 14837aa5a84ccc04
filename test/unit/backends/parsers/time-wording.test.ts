import { afterEach, describe, expect, it } from 'vitest';
import { parseStreamJsonObject } from '../../../../src/backends/parsers/stream-json.ts';
import { limitWarnings } from '../../../../src/engine/decide/limit-warnings.ts';
import { testsReport } from '../../../../src/engine/gates/checks/run-gate.ts';
import { describeEvent } from '../../../../src/index.ts';
import { historyLine } from '../../../../src/workflows/tdd-state.ts';

/**
 * Every moment and duration people read goes through src/state/io/time-format.ts: the same
 * wording on every machine, whatever its locale, and local dates where the markers beside them
 * are local too.
 */
describe('times and durations in messages', () => {
  const tz = process.env.TZ;
  afterEach(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  it('a parked loop names the local time as HH:mm:ss and the wait as a duration, whatever the locale', () => {
    const until = new Date(2026, 10, 26, 14, 3, 9).getTime();
    const line = describeEvent({
      type: 'loop.parked',
      iteration: 3,
      until,
      remainingMs: 125_000,
      message: 'rate limit',
      first: true,
    });
    expect(line).toBe('parked — rate limit; resuming iteration 3 at 14:03:09 (in 2m 05s)');
  });

  it('a TDD history line carries the local date, like the checklist markers', () => {
    process.env.TZ = 'Pacific/Auckland'; // UTC+13 in November: 20:30 UTC is the next day there
    const line = historyLine({
      iteration: 2,
      date: new Date('2026-11-21T20:30:00Z'),
      status: 'engineering',
      tests: 'passed',
      summary: 'done',
    });
    expect(line).toBe('- Iteration 2 (2026-11-22) — ENGINEERING, tests passed: done');
  });

  it('the runtime limit warning, the api_retry delay and the tests report speak in durations', () => {
    const [warning] = limitWarnings(
      { iterations: 0, elapsedMs: 1_800_000, costUsd: 0, tokens: 0, consecutiveFailures: 0 },
      {
        maxIterations: 0,
        maxRuntimeMs: 3_600_000,
        maxCostUsd: undefined,
        maxTokens: undefined,
        maxConsecutiveFailures: 3,
      },
      {},
    );
    expect(warning?.message).toBe('50 % of the runtime limit used (30m 00s of runtime of 1h 00m of runtime)');

    const events = parseStreamJsonObject({
      type: 'system',
      subtype: 'api_retry',
      error_status: 500,
      error: 'server_error',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 650,
    });
    expect(events).toEqual([{ type: 'error', message: 'API 500 server_error: retry 1/10 in 650ms' }]);

    const report = testsReport(
      {
        gate: 'tests',
        command: 'npm test',
        exitCode: 0,
        passed: true,
        timedOut: false,
        durationMs: 152_000,
        output: 'ok',
        stdout: 'ok',
      },
      4,
      new Date(0),
    );
    expect(report).toContain('- Duration: 2m 32s\n');
  });
});
