import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  COPILOT_ARG_PROMPT_MAX_BYTES,
  classifyCopilotExit,
  copilotBackend,
  parseCopilotResetTime,
} from '../../../../src/backends/agents/copilot.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/** Real `copilot --output-format json` output (1.0.102, BYOK) against a scripted model server (SOURCE.md). */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'copilot');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = copilotBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

const classifyFixture = (name: string, exitCode: number) =>
  classifyCopilotExit(exitInfo(parse(fixtureLines(name)).events, exitCode));

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'copilot', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  copilotBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['--output-format', 'json', '--allow-all', '--no-ask-user'];

describe('copilot invocation', () => {
  it('runs copilot non-interactively with JSONL output, every permission, the prompt as --prompt=', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('copilot');
    expect(inv.args).toEqual([...HEADLESS, '--prompt=do the thing']);
    expect(inv.stdin).toBeNull();
    expect(inv.env).toEqual({});
  });

  it('adds --model, cli.args and the extra args before the prompt; cli.command replaces the executable', () => {
    const inv = invoke('p', { command: '/opt/copilot', model: 'gpt-5.5', args: ['--log-level', 'none'] }, [
      '--add-dir',
      '/x',
    ]);
    expect(inv.command).toBe('/opt/copilot');
    expect(inv.args).toEqual([
      ...HEADLESS,
      '--model',
      'gpt-5.5',
      '--log-level',
      'none',
      '--add-dir',
      '/x',
      '--prompt=p',
    ]);
  });

  it('a prompt that starts with "-" stays the value of --prompt=', () => {
    expect(invoke('- item one').args.at(-1)).toBe('--prompt=- item one');
  });

  it('a prompt too long for one argument goes on stdin, without --prompt', () => {
    const prompt = `${'x'.repeat(300_000)}\nEND`;
    const inv = invoke(prompt);
    expect(inv.args).toEqual(HEADLESS);
    expect(inv.stdin).toBe(prompt);
    expect(invoke('y'.repeat(COPILOT_ARG_PROMPT_MAX_BYTES)).stdin).toBeNull();
    expect(invoke('€'.repeat(40_000)).stdin).not.toBeNull();
  });

  it('every flag it passes is in the recorded `copilot --help` (1.0.102)', () => {
    const help = fixture('help.txt');
    const flags = invoke('p', { model: 'm' })
      .args.map((a) => a.replace(/=.*$/s, ''))
      .filter((a) => a.startsWith('-'));
    expect(flags).toEqual([...HEADLESS.filter((a) => a.startsWith('-')), '--model', '--prompt']);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
  });
});

describe('copilot output parser (recorded)', () => {
  it('one answer: model, text, session id, and a result without tokens or cost', () => {
    const { events, finalText } = parse(fixtureLines('hello'));
    expect(events).toEqual([
      { type: 'system', model: 'gpt-5.5' },
      { type: 'text', text: 'Hello from the scripted model.\nLOOP_COMPLETE' },
      { type: 'system', sessionId: '94ec8c02-4af5-4747-94aa-e0cebcc9da0f' },
      { type: 'result', text: 'Hello from the scripted model.\nLOOP_COMPLETE', isError: false },
    ]);
    expect(finalText).toBe('Hello from the scripted model.\nLOOP_COMPLETE');
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals().total).toBe(0); // copilot 1.0.102 prints no token counts on stdout
    expect(meter.model).toBe('gpt-5.5');
    expect(classifyCopilotExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('tool calls and results; a file and an answer mentioning limits are no limit', () => {
    const { events, finalText } = parse(fixtureLines('tool-session-reads-limit-text'));
    const tools = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(tools.map((e) => e.type)).toEqual([
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
    ]);
    expect(tools[0]).toMatchObject({ type: 'tool_call', name: 'bash', id: 'call_mwq2z0yo2' });
    expect(tools[3]).toMatchObject({ type: 'tool_result', isError: false });
    expect((tools[3] as { output: string }).output).toContain('You have hit your 5-hour usage limit');
    // `cat` of a missing file: the shell exited 1.
    expect(tools[5]).toMatchObject({ type: 'tool_result', id: 'call_mwq2z1196', isError: true });
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(finalText).toBe(
      'Created hello.txt. The log mentions "429 Too Many Requests" and a usage limit; nothing to do.\nLOOP_COMPLETE',
    );
    expect(classifyCopilotExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    expect(classifyCopilotExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('429s copilot retried, then an answer: retrying notices, and success', () => {
    const { events, finalText } = parse(fixtureLines('retry-429-then-ok'));
    const limits = events.filter((e) => e.type === 'rate_limit');
    expect(limits).toHaveLength(2);
    expect(limits.every((e) => e.type === 'rate_limit' && e.retrying === true)).toBe(true);
    expect(finalText).toBe('Recovered after the rate limit.\nLOOP_COMPLETE');
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });

  it('429s until copilot gave up: its session.error rate_limit is the limit', () => {
    expect(classifyFixture('rate-limit-429-exhausted', 1)).toEqual({
      kind: 'rate_limit',
      message:
        'Failed to get response from the AI model; retried 5 times (total retry wait time: 5.47 seconds) Last error: 429 Rate limit reached for requests',
      resetAt: undefined,
    });
    expect(classifyFixture('quota-exceeded', 1)).toMatchObject({
      kind: 'rate_limit',
      message: expect.stringContaining('You exceeded your current quota'),
    });
  });

  it("GitHub's own wording names the wait: park for it", () => {
    const before = Date.now();
    const cls = classifyFixture('rate-limit-try-again-in', 1);
    expect(cls.kind).toBe('rate_limit');
    const resetAt = cls.kind === 'rate_limit' ? cls.resetAt : undefined;
    expect(resetAt).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
  });

  it('a rejected key is an auth error; an exhausted context window a context overflow', () => {
    expect(classifyFixture('auth-401', 1)).toMatchObject({
      kind: 'auth_error',
      message: expect.stringContaining('Authentication failed with provider'),
    });
    expect(classifyFixture('context-overflow', 1)).toMatchObject({
      kind: 'context_overflow',
      message: expect.stringContaining('maximum context length'),
    });
  });

  it('failures before the JSON stream are read from stderr', () => {
    expect(classifyCopilotExit(exitInfo([], 1, { stderrTail: fixture('not-logged-in.stderr.txt') }))).toEqual(
      {
        kind: 'auth_error',
        message: 'No authentication information found.',
      },
    );
    expect(
      classifyCopilotExit(exitInfo([], 1, { stderrTail: fixture('token-not-validated.stderr.txt') })),
    ).toEqual({ kind: 'agent_error', message: 'Authentication token found but could not be validated.' });
  });
});

describe('copilot output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);

  it('reads assistant.usage events should a version print them', () => {
    const { events } = parse([
      line({
        type: 'assistant.usage',
        ephemeral: true,
        data: {
          model: 'gpt-5.5',
          inputTokens: 1200,
          outputTokens: 40,
          cacheReadTokens: 800,
          apiCallId: 'c1',
        },
      }),
    ]);
    expect(events).toEqual([
      {
        type: 'usage',
        usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 800, cacheWriteTokens: 0 },
        messageId: 'c1',
        model: 'gpt-5.5',
      },
    ]);
  });

  it('session.error types map to exit classes; sub-agent text is not the answer', () => {
    const err = (errorType: string, message: string) =>
      line({ type: 'session.error', data: { errorType, message } });
    const classify = (l: string) => classifyCopilotExit(exitInfo(parse([l]).events, 1));
    expect(classify(err('authorization', 'no access to model'))).toMatchObject({ kind: 'auth_error' });
    expect(classify(err('context_limit', 'too big'))).toMatchObject({ kind: 'context_overflow' });
    expect(classify(err('quota', 'quota exceeded; try again in 3 days'))).toMatchObject({
      kind: 'rate_limit',
    });
    expect(classify(err('policy', 'blocked by policy'))).toEqual({
      kind: 'agent_error',
      message: 'blocked by policy',
    });
    const { finalText } = parse([
      line({ type: 'assistant.message', data: { content: 'main answer', toolRequests: [] } }),
      line({
        type: 'assistant.message',
        agentId: 'sub-1',
        data: { content: 'sub-agent chatter', toolRequests: [] },
      }),
    ]);
    expect(finalText).toBe('main answer');
  });

  it('killed runs are killed; a signal without a result is an error', () => {
    const { events } = parse(fixtureLines('rate-limit-429-exhausted'));
    expect(classifyCopilotExit(exitInfo(events, null, { signal: 'SIGTERM', killedBy: 'max_cost' }))).toEqual({
      kind: 'killed',
      reason: 'max_cost',
    });
    expect(classifyCopilotExit(exitInfo([], null, { signal: 'SIGSEGV' }))).toEqual({
      kind: 'agent_error',
      message: 'copilot was killed by SIGSEGV',
    });
  });
});

describe('parseCopilotResetTime', () => {
  const now = Date.UTC(2026, 10, 21, 7, 0);
  it('reads "try again in …" and "retry after … seconds"', () => {
    expect(parseCopilotResetTime('Please try again in 2 hours.', now)).toBe(now + 2 * 3_600_000);
    expect(parseCopilotResetTime('try again in 1 hour 30 minutes', now)).toBe(now + 90 * 60_000);
    expect(parseCopilotResetTime('Please retry after 2733 seconds.', now)).toBe(now + 2_733_000);
    expect(parseCopilotResetTime('Please try again later.', now)).toBeUndefined();
  });
});
