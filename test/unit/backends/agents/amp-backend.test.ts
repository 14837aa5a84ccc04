import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import { ampBackend, classifyAmpExit } from '../../../../src/backends/agents/amp.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/**
 * Amp (0.0.1790142911): its error output recorded here offline; the stream-json success and error
 * shapes documented from Amp's SDK schema (`documented-*`, see SOURCE.md).
 */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'amp');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = ampBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

const config = (cli: Record<string, unknown> = {}) => configSchema.parse({ cli: { backend: 'amp', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  ampBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['--execute', '--stream-json', '--dangerously-allow-all', '--no-ide'];

describe('amp invocation', () => {
  it('runs amp in execute mode with stream JSON and every tool allowed, the prompt on stdin', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('amp');
    expect(inv.args).toEqual(HEADLESS);
    expect(inv.stdin).toBe('do the thing');
    expect(inv.env).toEqual({});
  });

  it('cli.model picks the agent mode; cli.args and extra args follow; prompts of any size go on stdin', () => {
    const long = `- ${'x'.repeat(300_000)}`;
    const inv = invoke(long, { command: '/opt/amp', model: 'high', args: ['--log-level', 'error'] }, [
      '--label',
      'x',
    ]);
    expect(inv.command).toBe('/opt/amp');
    expect(inv.args).toEqual([...HEADLESS, '--mode', 'high', '--log-level', 'error', '--label', 'x']);
    expect(inv.stdin).toBe(long);
  });

  it('every flag is in the recorded `amp --help`, except --dangerously-allow-all (hidden there, used by Amp’s SDK)', () => {
    const help = fixture('help.txt');
    const flags = invoke('p', { model: 'm' }).args.filter((a) => a.startsWith('-'));
    for (const flag of flags.filter((f) => f !== '--dangerously-allow-all'))
      expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
    // What the hidden flag stands for is documented: the amp.dangerouslyAllowAll setting.
    expect(help).toContain('amp.dangerouslyAllowAll');
  });
});

describe('amp output parser (documented shapes)', () => {
  it('a tool session: text, tool calls and results, usage per message, the result', () => {
    const { events, finalText } = parse(fixtureLines('documented-tool-session'));
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { name: string }).name)).toEqual([
      'create_file',
      'Read',
      'Bash',
    ]);
    expect(events).toContainEqual({
      type: 'tool_result',
      id: 'toolu_03',
      output: 'cat: missing.txt: No such file or directory',
      isError: true,
    });
    expect(finalText).toBe(
      "Created hello.txt. limits.txt says you've hit your usage limit (429); nothing to do about it.\nLOOP_COMPLETE",
    );
    // The file it read and its answer mention a usage limit and 429: no limit.
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({
      input: 17556,
      output: 117,
      cache_read: 52488,
      cache_write: 300,
      total: 70461,
    });
    expect(meter.model).toBe('claude-sonnet-4-5');
    expect(meter.costUsd).toBeUndefined();
    expect(classifyAmpExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    expect(classifyAmpExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('an error result carries its message in `error`', () => {
    const { events, finalText } = parse(fixtureLines('documented-error-result'));
    expect(events.at(-1)).toEqual({
      type: 'result',
      text: 'Provider returned an error: 429 Too Many Requests',
      isError: true,
      usage: undefined,
      costUsd: undefined,
      model: undefined,
    });
    expect(finalText).toBe('Provider returned an error: 429 Too Many Requests');
    expect(classifyAmpExit(exitInfo(events, 1))).toEqual({
      kind: 'rate_limit',
      message: 'Provider returned an error: 429 Too Many Requests',
    });
  });
});

describe('amp failures (recorded)', () => {
  it('an invalid key is an auth error; an unreachable server an agent error', () => {
    expect(classifyAmpExit(exitInfo([], 1, { stderrTail: fixture('invalid-api-key.stderr.txt') }))).toEqual({
      kind: 'auth_error',
      message: "Invalid or missing API key. Run 'amp login' to authenticate.",
    });
    expect(
      classifyAmpExit(exitInfo([], 1, { stderrTail: fixture('server-unreachable.stderr.txt') })),
    ).toEqual({
      kind: 'agent_error',
      message: "Couldn't connect to the Amp server at https://ampcode.com/.",
    });
  });

  it('without a key amp waits for an interactive login on stdout: plain text, then killed', () => {
    const { events } = parse(fixture('no-api-key.stdout.txt').split('\n'));
    expect(events[0]).toEqual({ type: 'text', text: 'No API key found. Starting login flow...' });
    expect(events.every((e) => e.type === 'text')).toBe(true);
    expect(classifyAmpExit(exitInfo(events, null, { signal: 'SIGTERM', killedBy: 'idle_timeout' }))).toEqual({
      kind: 'killed',
      reason: 'idle_timeout',
    });
  });

  it('an assistant message quoting a rate limit, in a failed run, is not a limit', () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: {
        id: 'm',
        role: 'assistant',
        model: 'x',
        content: [{ type: 'text', text: 'Error: 429 rate limit' }],
      },
      parent_tool_use_id: null,
      session_id: 'T-1',
    });
    const { events } = parse([line]);
    expect(classifyAmpExit(exitInfo(events, 1, { stderrTail: 'Error: Thread upload failed\n' }))).toEqual({
      kind: 'agent_error',
      message: 'Thread upload failed',
    });
  });
});
