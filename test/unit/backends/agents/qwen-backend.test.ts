import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import { classifyQwenExit, qwenBackend, readQwenUsage } from '../../../../src/backends/agents/qwen.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/** Real `qwen -o stream-json` output (Qwen Code 0.15.10) against a scripted model server (SOURCE.md). */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'qwen');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = qwenBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

/** Classifies a recorded run with the exit code the real CLI had. */
const classifyFixture = (name: string, exitCode: number) =>
  classifyQwenExit(exitInfo(parse(fixtureLines(name)).events, exitCode));

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'qwen', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  qwenBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

describe('qwen invocation', () => {
  it('runs qwen one-shot with stream-json and --yolo, the prompt on stdin', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('qwen');
    expect(inv.args).toEqual(['--output-format', 'stream-json', '--yolo']);
    expect(inv.stdin).toBe('do the thing');
    expect(inv.env).toEqual({});
  });

  it('adds --model, cli.args and the extra args; cli.command replaces the executable', () => {
    const inv = invoke(
      'p',
      { command: '/opt/qwen', model: 'qwen3-coder-plus', args: ['--auth-type', 'openai'] },
      ['--debug'],
    );
    expect(inv.command).toBe('/opt/qwen');
    expect(inv.args).toEqual([
      '--output-format',
      'stream-json',
      '--yolo',
      '--model',
      'qwen3-coder-plus',
      '--auth-type',
      'openai',
      '--debug',
    ]);
  });

  it('a prompt of any size, or one that starts with "-", goes on stdin unchanged', () => {
    const long = `- ${'x'.repeat(300_000)}\nEND`;
    const inv = invoke(long);
    expect(inv.stdin).toBe(long);
    expect(inv.args).not.toContain(long);
  });

  it('every flag it passes is in the recorded `qwen --help` (0.15.10)', () => {
    const help = fixture('help.txt');
    const flags = invoke('p', { model: 'm' }).args.filter((a) => a.startsWith('-'));
    expect(flags).toEqual(['--output-format', '--yolo', '--model']);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
  });
});

describe('qwen output parser (recorded)', () => {
  it('a shell tool call, then the answer: tool call and result, usage per message, the result', () => {
    const { events, finalText } = parse(fixtureLines('shell-tool-session'));
    expect(events.map((e) => e.type)).toEqual([
      'system',
      'tool_call',
      'usage',
      'tool_result',
      'text',
      'usage',
      'result',
    ]);
    expect(events[0]).toMatchObject({ type: 'system', model: 'qwen3-coder-plus' });
    expect(events[1]).toMatchObject({ type: 'tool_call', name: 'run_shell_command', id: 'call_mwq2mwp32' });
    expect(events[3]).toEqual({ type: 'tool_result', id: 'call_mwq2mwp32', output: 'hi', isError: false });
    expect(finalText).toBe('Created hello.txt.\nLOOP_COMPLETE');
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    // The result's usage is authoritative (it also counts qwen's own background calls).
    expect(meter.totals()).toEqual({ input: 2500, output: 80, cache_read: 0, cache_write: 0, total: 2580 });
    expect(meter.model).toBe('qwen3-coder-plus');
    expect(meter.costUsd).toBeUndefined();
    expect(classifyQwenExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('input_tokens includes the cached tokens: they are split out', () => {
    const { events } = parse(fixtureLines('cached-usage'));
    expect(events.find((e) => e.type === 'usage')).toMatchObject({
      usage: { inputTokens: 1000, cacheReadTokens: 4000, outputTokens: 50, cacheWriteTokens: 0 },
    });
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({
      input: 2200,
      output: 90,
      cache_read: 4000,
      cache_write: 0,
      total: 6290,
    });
    expect(readQwenUsage({ input_tokens: 10, cache_read_input_tokens: 30 })?.inputTokens).toBe(0);
  });

  it('a file and an answer that mention a usage limit, 429 and "[API Error:" are no limit', () => {
    const { events, finalText } = parse(fixtureLines('tools-read-limit-text'));
    expect(JSON.stringify(events)).toContain('You have hit your 5-hour usage limit');
    expect(JSON.stringify(events)).toContain('[API Error: 429 Rate limit reached]');
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(finalText).toMatch(/usage limit reached; nothing to do about it\.\nLOOP_COMPLETE$/);
    expect(classifyQwenExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    // Even a failed exit does not turn the text the agent read into a limit.
    expect(classifyQwenExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('a 429 qwen retried (silently) and then answered is a success', () => {
    const { events, finalText } = parse(fixtureLines('retry-429-then-ok'));
    expect(events.some((e) => e.type === 'rate_limit')).toBe(false);
    expect(finalText).toBe('Recovered after the rate limit.\nLOOP_COMPLETE');
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });

  it('429s until qwen gave up: exit 0 and a "success" result, yet a rate limit', () => {
    const { events } = parse(fixtureLines('rate-limit-429-exhausted'));
    expect(events.filter((e) => e.type === 'text')).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'rate_limit',
        retrying: false,
        message: expect.stringMatching(/^\[API Error: 429/),
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'result', isError: true });
    expect(classifyFixture('rate-limit-429-exhausted', 0)).toEqual({
      kind: 'rate_limit',
      message: expect.stringContaining('[API Error: 429 Rate limit reached for requests]'),
    });
    expect(classifyFixture('quota-exceeded', 0)).toMatchObject({
      kind: 'rate_limit',
      message: expect.stringContaining('You exceeded your current quota'),
    });
  });

  it('a rejected key and a missing key are auth errors', () => {
    expect(classifyFixture('auth-401', 0)).toMatchObject({
      kind: 'auth_error',
      message: expect.stringMatching(/^\[API Error: 401 Incorrect API key/),
    });
    const missing = parse(fixtureLines('missing-api-key'));
    expect(missing.events).toEqual([expect.objectContaining({ type: 'result', isError: true })]);
    expect(classifyFixture('missing-api-key', 1)).toMatchObject({
      kind: 'auth_error',
      message: expect.stringContaining('Missing API key'),
    });
  });

  it('an exhausted context window is a context overflow; an unreachable server an agent error', () => {
    expect(classifyFixture('context-overflow', 0)).toMatchObject({ kind: 'context_overflow' });
    expect(classifyFixture('connection-error', 0)).toEqual({
      kind: 'agent_error',
      message: '[API Error: Connection error. (cause: fetch failed)]',
    });
  });
});

describe('qwen output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const assistant = (text: string, usage: Record<string, number>) =>
    line({
      type: 'assistant',
      message: { id: 'm1', role: 'assistant', model: 'q', content: [{ type: 'text', text }], usage },
    });

  it('a model message that says "[API Error: 429 …]" (it has usage) is text, not an error', () => {
    const { events } = parse([
      assistant('[API Error: 429 Rate limit reached for requests]', { input_tokens: 900, output_tokens: 12 }),
      line({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: '[API Error: 429 Rate limit reached]',
      }),
    ]);
    expect(events[0]).toEqual({ type: 'text', text: '[API Error: 429 Rate limit reached for requests]' });
    expect(classifyQwenExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('an API error after earlier work still ends the run as an error', () => {
    const { events } = parse([
      assistant('Working on it.', { input_tokens: 900, output_tokens: 12 }),
      assistant('[API Error: 500 upstream exploded]', { input_tokens: 0, output_tokens: 0 }),
      line({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: '[API Error: 500 upstream exploded]',
      }),
    ]);
    expect(classifyQwenExit(exitInfo(events, 0))).toEqual({
      kind: 'agent_error',
      message: '[API Error: 500 upstream exploded]',
    });
  });

  it('killed runs are killed; non-JSON lines are text; a crash without a result reads stderr', () => {
    expect(
      classifyQwenExit(exitInfo([], null, { signal: 'SIGTERM', killedBy: 'iteration_timeout' })),
    ).toEqual({ kind: 'killed', reason: 'iteration_timeout' });
    const parser = qwenBackend.createParser();
    expect(parser.parseLine('Loaded cached credentials.')).toEqual([
      { type: 'text', text: 'Loaded cached credentials.' },
    ]);
    expect(parser.parseLine('   ')).toEqual([]);
    expect(classifyQwenExit(exitInfo([], 1, { stderrTail: 'boom\nError: bad settings.json\n' }))).toEqual({
      kind: 'agent_error',
      message: 'Error: bad settings.json',
    });
  });
});
