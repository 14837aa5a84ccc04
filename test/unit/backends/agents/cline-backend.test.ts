import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  CLINE_ARG_PROMPT_MAX_BYTES,
  classifyClineExit,
  clineBackend,
  splitClinePrompt,
} from '../../../../src/backends/agents/cline.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/** Real `cline --json` output (Cline CLI 3.0.65) against a scripted model server (SOURCE.md). */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'cline');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = clineBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

const classifyFixture = (name: string, exitCode: number) =>
  classifyClineExit(exitInfo(parse(fixtureLines(name)).events, exitCode));

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'cline', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  clineBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['--json', '--auto-approve', 'true'];

describe('cline invocation', () => {
  it('runs cline with JSON output and auto-approval, the prompt as the argument after --', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('cline');
    expect(inv.args).toEqual([...HEADLESS, '--', 'do the thing']);
    expect(inv.stdin).toBeNull();
    expect(inv.env).toEqual({});
  });

  it('adds --model, cli.args and the extra args before the prompt; cli.command replaces the executable', () => {
    const inv = invoke('p q', { command: '/opt/cline', model: 'gpt-5.5', args: ['--retries', '3'] }, ['-v']);
    expect(inv.command).toBe('/opt/cline');
    expect(inv.args).toEqual([...HEADLESS, '--model', 'gpt-5.5', '--retries', '3', '-v', '--', 'p q']);
  });

  it('a one-word prompt gets a trailing newline (cline reads a bare word as a command)', () => {
    expect(invoke('hello').args.at(-1)).toBe('hello\n');
    expect(fixture('single-word-prompt.stderr.txt')).toContain('Unknown command or unquoted prompt: hello');
  });

  it('a long prompt: the head as the argument, the rest piped through `cat |` to cline stdin', () => {
    const para = (i: number) => `Paragraph ${i}: ${'word '.repeat(60).trim()}\n- item`;
    const prompt = `${Array.from({ length: 600 }, (_, i) => para(i)).join('\n\n')}\n\nEND`;
    const inv = invoke(prompt, { model: 'm' });
    expect(inv.command).toBe('sh');
    expect(inv.args.slice(0, 3)).toEqual(['-c', 'cat | "$0" "$@"', 'cline']);
    expect(inv.args.slice(3, -1)).toEqual([...HEADLESS, '--model', 'm', '--']);
    const head = inv.args.at(-1)!;
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(CLINE_ARG_PROMPT_MAX_BYTES);
    // cline joins argument and stdin with a blank line: the prompt arrives whole.
    expect(`${head}\n\n${inv.stdin}`).toBe(prompt);
  });

  it('every flag it passes is in the recorded `cline --help` (3.0.65)', () => {
    const help = fixture('help.txt');
    const flags = invoke('p q', { model: 'm' }).args.filter((a) => a.startsWith('-') && a !== '--');
    expect(flags).toEqual(['--json', '--auto-approve', '--model']);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
  });
});

describe('splitClinePrompt', () => {
  it('leaves a prompt within the limit whole', () => {
    expect(splitClinePrompt('a\n\nb', 10)).toEqual(['a\n\nb', '']);
  });

  it('cuts at the last blank line that fits; else at a line break; else anywhere', () => {
    expect(splitClinePrompt('one two\n\nthree\n\nfour five six', 16)).toEqual([
      'one two\n\nthree',
      'four five six',
    ]);
    expect(splitClinePrompt('one two\nthree four five', 12)).toEqual(['one two', 'three four five']);
    expect(splitClinePrompt('abcdefghij', 4)).toEqual(['abcd', 'efghij']);
  });

  it('counts bytes, not characters, and never cuts a surrogate pair', () => {
    const [head, rest] = splitClinePrompt('€€€€€€', 7);
    expect(head).toBe('€€');
    expect(head + rest).toBe('€€€€€€');
    const [h2, r2] = splitClinePrompt('a😀b😀c', 4);
    expect(h2).toBe('a');
    expect(h2 + r2).toBe('a😀b😀c');
  });
});

describe('cline output parser (recorded)', () => {
  it('one answer: session, usage, text and a run_result with the answer and totals', () => {
    const { events, finalText } = parse(fixtureLines('hello'));
    expect(events).toEqual([
      { type: 'system', sessionId: 'conv_1795245919359_5jfjc7k' },
      {
        type: 'usage',
        usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
        messageId: 'conv_1795245919359_5jfjc7k:call-1',
        costUsd: undefined,
      },
      { type: 'text', text: 'Hello from the scripted model.\nLOOP_COMPLETE' },
      {
        type: 'result',
        text: 'Hello from the scripted model.\nLOOP_COMPLETE',
        isError: false,
        usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: undefined,
        model: 'gpt-5.5',
      },
    ]);
    expect(finalText).toBe('Hello from the scripted model.\nLOOP_COMPLETE');
    expect(classifyClineExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('tool calls with results (a failed command is an error result); limit text is no limit', () => {
    const { events, finalText } = parse(fixtureLines('tool-session-reads-limit-text'));
    const tools = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(tools).toHaveLength(6);
    expect(tools[0]).toMatchObject({
      type: 'tool_call',
      name: 'run_commands',
      id: 'call_mwq332s22',
      input: { commands: ["printf 'hi\\n' > hello.txt && cat hello.txt"] },
    });
    expect(tools[1]).toEqual({ type: 'tool_result', id: 'call_mwq332s22', output: 'hi\n', isError: false });
    expect(tools[3]).toMatchObject({ type: 'tool_result', isError: false });
    expect((tools[3] as { output: string }).output).toContain('{"type":"error","message":"rate limit"}');
    expect(tools[5]).toMatchObject({ type: 'tool_result', id: 'call_mwq3330l6', isError: true });
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(finalText).toMatch(/usage limit; nothing to do\.\nLOOP_COMPLETE$/);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({ input: 5400, output: 160, cache_read: 0, cache_write: 0, total: 5560 });
    expect(meter.model).toBe('gpt-5.5');
    expect(classifyClineExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    expect(classifyClineExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('a 429 cline retried, then an answer, is a success', () => {
    expect(parse(fixtureLines('retry-429-then-ok')).finalText).toBe(
      'Recovered after the rate limit.\nLOOP_COMPLETE',
    );
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });

  it('429s until cline gave up, and an exhausted quota, are rate limits (errorClass unknown)', () => {
    expect(classifyFixture('rate-limit-429-exhausted', 1)).toEqual({
      kind: 'rate_limit',
      message: 'Rate limit reached for requests',
      resetAt: undefined,
    });
    expect(classifyFixture('quota-exceeded', 1)).toMatchObject({
      kind: 'rate_limit',
      message: 'You exceeded your current quota, please check your plan and billing details.',
    });
  });

  it('errorClass auth and context_window_exceeded map to auth error and context overflow', () => {
    expect(classifyFixture('auth-401', 1)).toEqual({
      kind: 'auth_error',
      message: 'Incorrect API key provided: sk-test.',
    });
    expect(classifyFixture('context-overflow', 1)).toMatchObject({
      kind: 'context_overflow',
      message: expect.stringContaining("exceeds the model's context window"),
    });
  });

  it('an unreachable provider is an agent error', () => {
    expect(classifyFixture('no-provider-offline', 1)).toMatchObject({
      kind: 'agent_error',
      message: expect.stringContaining('Cannot connect to API'),
    });
  });

  it('a CLI error line (JSON on stderr when the prompt is missing) and plain stderr', () => {
    const parser = clineBackend.createParser();
    const events = parser.parseLine(fixture('json-needs-prompt.stderr.txt'));
    expect(events).toEqual([
      {
        type: 'error',
        message:
          'cline error [cli] JSON output mode requires a prompt argument or piped stdin (interactive mode is unsupported)',
      },
    ]);
    expect(classifyClineExit(exitInfo(events, 1))).toMatchObject({ kind: 'agent_error' });
    expect(classifyClineExit(exitInfo([], 1))).toEqual({
      kind: 'agent_error',
      message: 'cline exited with code 1',
    });
  });
});

describe('cline output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);

  it('reports the cost cline priced, and none when it priced nothing', () => {
    const result = (totalCost: number) =>
      line({
        type: 'run_result',
        finishReason: 'completed',
        usage: { inputTokens: 10, outputTokens: 2, totalCost },
        aggregateUsage: {
          inputTokens: 100,
          outputTokens: 20,
          cacheReadTokens: 50,
          cacheWriteTokens: 5,
          totalCost,
        },
        text: 'ok',
        model: { id: 'claude-sonnet-4-5', provider: 'anthropic' },
      });
    expect(parse([result(0.0123)]).events[0]).toMatchObject({
      type: 'result',
      costUsd: 0.0123,
      usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 5 },
    });
    expect(parse([result(0)]).events[0]).toMatchObject({ costUsd: undefined });
  });

  it('per-call cost is what each call added to the running totalCost, so max_cost can bite mid-run', () => {
    const usage = (inputTokens: number, totalCost: number) =>
      line({ type: 'agent_event', event: { type: 'usage', inputTokens, outputTokens: 5, totalCost } });
    const { events } = parse([
      line({ type: 'hook_event', hookEventName: 'agent_start', taskId: 't1', parentAgentId: null }),
      usage(1000, 0.01),
      usage(1500, 0.025),
    ]);
    const costs = events.flatMap((e) => (e.type === 'usage' ? [[e.messageId, e.costUsd]] : []));
    expect(costs).toEqual([
      ['t1:call-1', 0.01],
      ['t1:call-2', expect.closeTo(0.015, 10)],
    ]);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.spentUsd()).toBeCloseTo(0.025, 10);
    expect(meter.totals().input).toBe(2500);
  });

  it('assistant text that mentions a limit, in a failed run, is not a limit', () => {
    const { events } = parse([
      line({
        type: 'agent_event',
        event: { type: 'content_end', contentType: 'text', text: "You've hit your usage limit (429)." },
      }),
      line({
        type: 'agent_event',
        event: {
          type: 'error',
          error: { message: 'socket hang up' },
          errorClass: 'unknown',
          recoverable: false,
        },
      }),
    ]);
    expect(classifyClineExit(exitInfo(events, 1))).toEqual({
      kind: 'agent_error',
      message: 'socket hang up',
    });
  });

  it('killed runs are killed', () => {
    expect(classifyClineExit(exitInfo([], null, { signal: 'SIGKILL', killedBy: 'idle_timeout' }))).toEqual({
      kind: 'killed',
      reason: 'idle_timeout',
    });
  });
});
