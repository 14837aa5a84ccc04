import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  createOpencodeBackend,
  OPENCODE_SESSION_TITLE,
  opencodeBackend,
} from '../../../../src/backends/agents/opencode.ts';
import {
  classifyOpencodeExit,
  opencodeErrorMessage,
  opencodeResetAt,
} from '../../../../src/backends/parsers/opencode-errors.ts';
import { readOpencodeUsage } from '../../../../src/backends/parsers/opencode-stream.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { opencodeBinary } from '../../../helpers/agent-binaries.ts';
import { makeWorkspace, ROOT } from '../../../helpers/workspace.ts';

/** Real `opencode run --format json` output (opencode-ai 1.18.33) against the scripted model server. */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'opencode');

function fixtureLines(name: string): string[] {
  return readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);
}

function parse(lines: string[], model?: string): { events: AgentEvent[]; finalText: string } {
  const parser = createOpencodeBackend({ model }).createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

/** Classifies a recorded run with the exit code the real CLI had (and its stderr, when recorded). */
function classifyFixture(name: string, exitCode: number) {
  const stderrFile = join(FIXTURES, `${name}.stderr.txt`);
  const stderrTail = existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : '';
  return classifyOpencodeExit(exitInfo(parse(fixtureLines(name)).events, exitCode, { stderrTail }));
}

const timestampOf = (name: string): number =>
  (JSON.parse(fixtureLines(name).at(-1)!) as { timestamp: number }).timestamp;

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'opencode', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  opencodeBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['run', '--format', 'json', '--auto', '--title', OPENCODE_SESSION_TITLE, '--dir', '/ws'];

describe('opencode invocation', () => {
  it('runs opencode run with JSON events, auto-approval, a fixed title, the workspace; the prompt on stdin', () => {
    const inv = invoke('do "the" thing');
    expect(inv.command).toBe('opencode');
    expect(inv.args).toEqual(HEADLESS);
    expect(inv.stdin).toBe('do "the" thing');
    expect(inv.env).toEqual({ PWD: '/ws' });
  });

  it('adds -m, cli.args and the extra args; cli.command replaces the executable', () => {
    const inv = invoke(
      'p',
      { command: '/opt/opencode', model: 'anthropic/claude-sonnet-4-5', args: ['--agent', 'build'] },
      ['--variant', 'high'],
    );
    expect(inv.command).toBe('/opt/opencode');
    expect(inv.args).toEqual([
      ...HEADLESS,
      '-m',
      'anthropic/claude-sonnet-4-5',
      '--agent',
      'build',
      '--variant',
      'high',
    ]);
  });

  it('leaves the title and the directory to the user when cli.args set them', () => {
    const inv = invoke('p', { args: ['--title', 'mine', '--dir=/elsewhere'] });
    expect(inv.args.filter((a) => a === '--title')).toHaveLength(1);
    expect(inv.args).not.toContain('/ws');
    expect(inv.args.slice(-3)).toEqual(['--title', 'mine', '--dir=/elsewhere']);
  });

  it('a prompt of any size goes on stdin, byte for byte', () => {
    const prompt = `- starts with a dash\n${'x'.repeat(300_000)}\n"quoted" END`;
    const inv = invoke(prompt);
    expect(inv.stdin).toBe(prompt);
    expect(inv.args).toEqual(HEADLESS);
  });

  it('every flag it passes exists in the installed opencode run --help', () => {
    const home = makeWorkspace();
    // opencode prints its help on stderr.
    const run = spawnSync(opencodeBinary(), ['run', '--help'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
      },
    });
    const help = run.stdout + run.stderr;
    const flags = invoke('p', { model: 'a/b' }).args.filter((a) => a.startsWith('-'));
    expect(flags).toEqual(['--format', '--auto', '--title', '--dir', '-m']);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
    expect(help).toMatch(/--format\s+format: default \(formatted\) or json/);
  });
});

describe('opencode output parser (recorded)', () => {
  it('a shell command, then the answer: tool call and result, usage per step, cost, result = the last step’s text', () => {
    const { events, finalText } = parse(fixtureLines('shell-then-text'), 'ralphtest/ralph-model');
    expect(events.map((e) => e.type)).toEqual([
      'system',
      'tool_call',
      'tool_result',
      'usage',
      'text',
      'usage',
      'result',
    ]);
    expect(events[0]).toEqual({
      type: 'system',
      sessionId: 'ses_e03028b54ffeb6lDAhZhi3x2d6',
      model: 'ralphtest/ralph-model',
    });
    expect(events[1]).toEqual({
      type: 'tool_call',
      name: 'bash',
      id: 'call_mwq30lvk1',
      input: { command: 'echo hi > hi.txt && cat hi.txt' },
    });
    expect(events[2]).toEqual({ type: 'tool_result', id: 'call_mwq30lvk1', output: 'hi\n', isError: false });
    expect(finalText).toBe('Wrote hi.txt.\nLOOP_COMPLETE');
    const result = events.at(-1);
    expect(result).toMatchObject({ type: 'result', text: finalText, isError: false });
    // Two model calls of 1200 in / 40 out, priced at $3 / $15 per million tokens: 2 × $0.0042.
    expect(result?.type === 'result' && result.costUsd).toBeCloseTo(0.0084, 10);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({ input: 2400, output: 80, cache_read: 0, cache_write: 0, total: 2480 });
    expect(meter.costUsd).toBeCloseTo(0.0084, 10);
    expect(classifyOpencodeExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('usage events of one run each have their own id, so none replaces another', () => {
    const { events } = parse(fixtureLines('tool-errors'));
    const ids = events.flatMap((e) => (e.type === 'usage' ? [e.messageId] : []));
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('the write tool and an apply_patch are tool calls with results', () => {
    const write = parse(fixtureLines('write-tool')).events;
    expect(write).toContainEqual(
      expect.objectContaining({
        type: 'tool_call',
        name: 'write',
        input: expect.objectContaining({ content: '# Notes\nline "two"\n' }),
      }),
    );
    expect(write).toContainEqual(
      expect.objectContaining({ type: 'tool_result', output: 'Wrote file successfully.', isError: false }),
    );
    const { events, finalText } = parse(fixtureLines('apply-patch'));
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { name: string }).name)).toEqual([
      'apply_patch',
      'bash',
    ]);
    expect(
      events.filter((e) => e.type === 'tool_result').every((e) => !(e as { isError: boolean }).isError),
    ).toBe(true);
    expect(finalText).toBe('Notes written twice.\nLOOP_COMPLETE');
    // A model without a price: opencode reports cost 0.
    expect(events.at(-1)).toMatchObject({ type: 'result', costUsd: 0 });
  });

  it('a failed command (exit 3) and a tool error are error results; the run still succeeds', () => {
    const { events, finalText } = parse(fixtureLines('tool-errors'));
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results).toEqual([
      { type: 'tool_result', id: 'call_mwq30se7c', output: 'partial\n', isError: true },
      {
        type: 'tool_result',
        id: 'call_mwq30sjqe',
        output: 'NotFound: FileSystem.makeDirectory (/proc/ralph-nope)',
        isError: true,
      },
    ]);
    expect(finalText).toBe('Both failed, as expected.\nLOOP_COMPLETE');
    expect(classifyOpencodeExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('command output and an answer quoting limit, auth and overflow messages are none of those', () => {
    const { events } = parse(fixtureLines('reads-limit-text'));
    expect(JSON.stringify(events)).toContain("You've hit your usage limit. Try again at 3:00 PM.");
    expect(JSON.stringify(events)).toContain('APIError (HTTP 401): invalid api key');
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(classifyOpencodeExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    // Even had opencode exited non-zero, agent text is never read as a limit or an auth error.
    expect(classifyOpencodeExit(exitInfo(events, 1))).toEqual({
      kind: 'agent_error',
      message: 'opencode exited with code 1',
    });
  });

  it('a 429 opencode retried and then got past is invisible: success', () => {
    const { events, finalText } = parse(fixtureLines('retry-429-then-ok'));
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(finalText).toBe('Recovered.\nLOOP_COMPLETE');
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });

  it('429s until opencode gave up: a rate limit, reset from the retry-after header', () => {
    const { events } = parse(fixtureLines('rate-limit-exhausted'));
    expect(events.map((e) => e.type)).toEqual(['system', 'error', 'rate_limit']);
    expect(classifyFixture('rate-limit-exhausted', 1)).toEqual({
      kind: 'rate_limit',
      message: 'APIError (HTTP 429): scripted error 429',
      resetAt: timestampOf('rate-limit-exhausted') + 1000,
    });
  });

  it('an opencode Go usage limit parks until its retry-after', () => {
    expect(classifyFixture('usage-limit-go', 1)).toEqual({
      kind: 'rate_limit',
      message: 'APIError (HTTP 429): Usage limit reached',
      resetAt: timestampOf('usage-limit-go') + 2000,
    });
  });

  it('an exhausted quota is a limit without a reset time', () => {
    expect(classifyFixture('insufficient-quota', 1)).toEqual({
      kind: 'rate_limit',
      message:
        'APIError (HTTP 429): You exceeded your current quota, please check your plan and billing details.',
      resetAt: undefined,
    });
  });

  it('a rejected key is an auth error', () => {
    expect(classifyFixture('auth-401', 1)).toEqual({
      kind: 'auth_error',
      message: 'APIError (HTTP 401): Incorrect API key provided: test-key.',
    });
  });

  it('an exhausted context window is a context overflow', () => {
    expect(classifyFixture('context-overflow', 1)).toMatchObject({
      kind: 'context_overflow',
      message: expect.stringMatching(
        /^ContextOverflowError: This model's maximum context length is 128000 tokens/,
      ),
    });
  });

  it('an unknown model is an agent error with opencode’s message', () => {
    expect(classifyFixture('unknown-model', 1)).toEqual({
      kind: 'agent_error',
      message: 'UnknownError: Unexpected server error. Check server logs for details.',
    });
  });

  it('a failure before the session (invalid config) is read from stderr, without colour codes', () => {
    expect(fixtureLines('bad-config')).toEqual([]);
    expect(classifyFixture('bad-config', 1)).toEqual({
      kind: 'agent_error',
      message: 'Error: Config file at OPENCODE_CONFIG_CONTENT is not valid JSON(C):',
    });
  });

  it('a session that ended on a rejected permission has no final answer: an agent error', () => {
    const { events, finalText } = parse(fixtureLines('permission-rejected'));
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_result',
        isError: true,
        output: 'The user rejected permission to use this specific tool call.',
      }),
    );
    expect(finalText).toBe('');
    expect(classifyOpencodeExit(exitInfo(events, 0))).toMatchObject({ kind: 'agent_error' });
  });
});

describe('opencode output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const step = (id: string, reason: string, tokens: unknown, cost?: number) =>
    line({
      type: 'step_finish',
      timestamp: 1,
      sessionID: 's1',
      part: { id, reason, type: 'step-finish', tokens, cost },
    });
  const text = (t: string) => line({ type: 'text', sessionID: 's1', part: { type: 'text', text: t } });
  const start = line({ type: 'step_start', sessionID: 's1', part: { type: 'step-start' } });
  const error = (name: string, data: unknown, timestamp = 1_000_000) =>
    line({ type: 'error', timestamp, sessionID: 's1', error: { name, data } });

  it('splits reasoning into output and keeps cache reads and writes', () => {
    expect(
      readOpencodeUsage({
        total: 1650,
        input: 200,
        output: 30,
        reasoning: 20,
        cache: { read: 1400, write: 0 },
      }),
    ).toEqual({
      inputTokens: 200,
      outputTokens: 50,
      cacheReadTokens: 1400,
      cacheWriteTokens: 0,
    });
    expect(readOpencodeUsage(undefined)).toBeUndefined();
  });

  it('the final text is the last step’s text only, its parts joined', () => {
    const { finalText, events } = parse([
      start,
      text('Let me look first.'),
      step('p1', 'tool-calls', { input: 10, output: 1 }),
      start,
      text('All done.'),
      text('LOOP_COMPLETE'),
      step('p2', 'stop', { input: 20, output: 2 }, 0.5),
    ]);
    expect(finalText).toBe('All done.\nLOOP_COMPLETE');
    expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      usage: { inputTokens: 30, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0.5,
    });
  });

  it('no cost reported: costUsd stays undefined (Ralph may estimate it from the model)', () => {
    const { events } = parse([start, text('ok'), step('p1', 'stop', { input: 5, output: 1 })]);
    expect(events.at(-1)).toMatchObject({ type: 'result', costUsd: undefined });
  });

  it('reports the model it was created with, for the context-window %', () => {
    const { events } = parse(
      [start, text('ok'), step('p1', 'stop', { input: 40_000, output: 10 })],
      'openai/gpt-5.5',
    );
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.model).toBe('openai/gpt-5.5');
    expect(meter.contextPct()).toBe(10);
  });

  it('non-JSON lines are text, not the final answer; blank lines are nothing; reasoning is not text', () => {
    const parser = opencodeBackend.createParser();
    expect(parser.parseLine('hello')).toEqual([{ type: 'text', text: 'hello' }]);
    expect(parser.parseLine('  ')).toEqual([]);
    expect(parser.parseLine('{not json')).toEqual([{ type: 'text', text: '{not json' }]);
    expect(parser.parseLine(line({ type: 'reasoning', sessionID: 's', part: { text: 'hmm' } }))).toEqual([
      { type: 'system', sessionId: 's', model: undefined },
    ]);
    expect(parser.finalText()).toBe('');
  });

  it('an answer that mentions a usage limit, in a run that failed otherwise, is not a limit', () => {
    const { events } = parse([
      start,
      text("The log says: You've hit your usage limit. Try again at 3:00 PM. HTTP 429."),
      error('APIError', { message: 'socket hang up', statusCode: 502, isRetryable: true }),
    ]);
    expect(classifyOpencodeExit(exitInfo(events, 1))).toEqual({
      kind: 'agent_error',
      message: 'APIError (HTTP 502): socket hang up',
    });
  });

  it('auth: a 403 and opencode’s ProviderAuthError', () => {
    const forbidden = parse([
      error('APIError', { message: 'Forbidden', statusCode: 403, isRetryable: false }),
    ]);
    expect(classifyOpencodeExit(exitInfo(forbidden.events, 1)).kind).toBe('auth_error');
    const missing = parse([
      error('ProviderAuthError', { providerID: 'anthropic', message: 'API key is missing' }),
    ]);
    expect(classifyOpencodeExit(exitInfo(missing.events, 1))).toEqual({
      kind: 'auth_error',
      message: 'ProviderAuthError: API key is missing',
    });
  });

  it('a provider’s context-length 400 that opencode did not name is still a context overflow', () => {
    const { events } = parse([
      error('APIError', {
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
        statusCode: 400,
        isRetryable: false,
      }),
    ]);
    expect(classifyOpencodeExit(exitInfo(events, 1)).kind).toBe('context_overflow');
  });

  it('rate-limit reset times: retry-after-ms, seconds, an HTTP date; none without headers', () => {
    expect(opencodeResetAt({ 'retry-after-ms': '1500' }, 1000)).toBe(2500);
    expect(opencodeResetAt({ 'Retry-After': '3600' }, 1000)).toBe(3_601_000);
    expect(opencodeResetAt({ 'retry-after': 'Wed, 25 Nov 2026 09:46:00 GMT' }, 0)).toBe(
      Date.UTC(2026, 10, 25, 9, 46),
    );
    expect(opencodeResetAt({ 'retry-after': 'soon' }, 0)).toBeUndefined();
    expect(opencodeResetAt(undefined, 0)).toBeUndefined();
  });

  it('a 429 with a long retry-after parks until then; the same error twice is one limit', () => {
    const limit = error('APIError', {
      message: 'Rate limit reached for requests',
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { 'retry-after': '18000' },
    });
    const { events } = parse([limit, limit]);
    expect(events.filter((e) => e.type === 'rate_limit')).toEqual([
      {
        type: 'rate_limit',
        message: 'APIError (HTTP 429): Rate limit reached for requests',
        resetAt: 1_000_000 + 18_000_000,
      },
    ]);
    expect(classifyOpencodeExit(exitInfo(events, 1))).toMatchObject({
      kind: 'rate_limit',
      resetAt: 19_000_000,
    });
  });

  it('a 5xx opencode gave up on names its status, so Ralph can retry it as transient', () => {
    const { events } = parse([
      error('APIError', { message: 'Internal server error', statusCode: 500, isRetryable: true }),
    ]);
    expect(classifyOpencodeExit(exitInfo(events, 1))).toEqual({
      kind: 'agent_error',
      message: 'APIError (HTTP 500): Internal server error',
    });
    expect(opencodeErrorMessage({ name: 'MessageOutputLengthError', data: {} })).toBe(
      'MessageOutputLengthError: no message',
    );
  });

  it('killed runs are killed, whatever they printed; a signal without a kill is an agent error', () => {
    const { events } = parse(fixtureLines('usage-limit-go'));
    expect(
      classifyOpencodeExit(exitInfo(events, null, { signal: 'SIGTERM', killedBy: 'iteration_timeout' })),
    ).toEqual({
      kind: 'killed',
      reason: 'iteration_timeout',
    });
    expect(classifyOpencodeExit(exitInfo([], null, { signal: 'SIGSEGV' }))).toEqual({
      kind: 'agent_error',
      message: 'opencode was killed by SIGSEGV',
    });
    expect(classifyOpencodeExit(exitInfo([], 0))).toMatchObject({ kind: 'agent_error' });
  });
});
