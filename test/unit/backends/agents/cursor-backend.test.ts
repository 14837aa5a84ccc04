import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  CURSOR_ARG_PROMPT_MAX_BYTES,
  classifyCursorExit,
  cursorBackend,
  parseCursorResetTime,
} from '../../../../src/backends/agents/cursor.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/** cursor-agent output documented from Cursor's reference and published captures (not recorded: SOURCE.md). */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'cursor');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = cursorBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'cursor', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  cursorBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['--print', '--output-format', 'stream-json', '--force', '--trust'];

describe('cursor invocation', () => {
  it('runs cursor-agent in print mode with stream-json, forcing and trusting, the prompt after --', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('cursor-agent');
    expect(inv.args).toEqual([...HEADLESS, '--', 'do the thing']);
    expect(inv.stdin).toBeNull();
  });

  it('adds --model, cli.args and extra args; cli.command replaces the executable (e.g. `agent`)', () => {
    const inv = invoke('p', { command: 'agent', model: 'sonnet-4', args: ['--sandbox', 'disabled'] }, [
      '--approve-mcps',
    ]);
    expect(inv.command).toBe('agent');
    expect(inv.args).toEqual([
      ...HEADLESS,
      '--model',
      'sonnet-4',
      '--sandbox',
      'disabled',
      '--approve-mcps',
      '--',
      'p',
    ]);
  });

  it('a prompt too long for one argument is piped on stdin', () => {
    const prompt = `${'x'.repeat(300_000)}\nEND`;
    const inv = invoke(prompt);
    expect(inv.args).toEqual(HEADLESS);
    expect(inv.stdin).toBe(prompt);
    expect(invoke('y'.repeat(CURSOR_ARG_PROMPT_MAX_BYTES)).stdin).toBeNull();
  });
});

describe('cursor output parser (documented shapes)', () => {
  it('a tool session: text, tool calls keyed by tool, results, the result with usage', () => {
    const { events, finalText } = parse(fixtureLines('documented-tool-session'));
    expect(events[0]).toEqual({
      type: 'system',
      model: 'Auto',
      sessionId: 'c6b62c6f-7ead-4fd6-9922-e952131177ff',
    });
    expect(events.filter((e) => e.type === 'tool_call').map((e) => (e as { name: string }).name)).toEqual([
      'edit',
      'read',
      'shell',
    ]);
    expect(events).toContainEqual({
      type: 'tool_result',
      id: 'call-973a6e21-0\nfc_8b6e91_0',
      output: 'Wrote contents to /workspace/hello.txt',
      isError: false,
    });
    // `cat` of a missing file: exit code 1.
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_result', id: 'call-77e0b3c1-0\nfc_0a9d11_0', isError: true }),
    );
    // Thinking is not text; the result is the concatenated answer, its last line the promise.
    expect(events.filter((e) => e.type === 'text')).toHaveLength(2);
    expect(finalText.split('\n').at(-1)).toBe('LOOP_COMPLETE');
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({
      input: 13112,
      output: 128,
      cache_read: 7808,
      cache_write: 0,
      total: 21048,
    });
    expect(meter.costUsd).toBeUndefined();
    expect(classifyCursorExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('a file and an answer that say "You\'ve hit your usage limit" are no limit', () => {
    const { events } = parse(fixtureLines('documented-tool-session'));
    expect(JSON.stringify(events)).toContain("You've hit your usage limit");
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    // Failed runs are read from stderr, never from what the agent read or wrote.
    expect(classifyCursorExit(exitInfo(events, 1, { stderrTail: 'Error: stream closed\n' }))).toEqual({
      kind: 'agent_error',
      message: 'stream closed',
    });
  });
});

describe('cursor failures (documented stderr)', () => {
  const failed = (stderrFile: string, stdout: string[] = []) =>
    classifyCursorExit(exitInfo(parse(stdout).events, 1, { stderrTail: fixture(stderrFile) }));

  it('not logged in is an auth error', () => {
    expect(failed('documented-not-logged-in.stderr.txt')).toEqual({
      kind: 'auth_error',
      message:
        "Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY environment variable.",
    });
  });

  it("the usage limit parks until the billing cycle's end", () => {
    expect(failed('documented-usage-limit.stderr.txt')).toEqual({
      kind: 'rate_limit',
      message: "You've hit your usage limit",
      resetAt: new Date(2025, 10, 17).getTime(),
    });
  });

  it('workspace trust and a model the plan cannot use are agent errors (the stream stops early)', () => {
    expect(failed('documented-trust-required.stderr.txt')).toEqual({
      kind: 'agent_error',
      message: 'Workspace Trust Required',
    });
    expect(failed('documented-named-model.stderr.txt', fixtureLines('documented-named-model'))).toEqual({
      kind: 'agent_error',
      message:
        'Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade plans to continue.',
    });
  });

  it('killed runs are killed', () => {
    expect(classifyCursorExit(exitInfo([], null, { signal: 'SIGTERM', killedBy: 'max_tokens' }))).toEqual({
      kind: 'killed',
      reason: 'max_tokens',
    });
  });
});

describe('parseCursorResetTime', () => {
  it('reads the end of the monthly cycle', () => {
    expect(
      parseCursorResetTime('Your usage limits will reset when your monthly cycle ends on 10/2/2026.'),
    ).toBe(new Date(2026, 9, 2).getTime());
    expect(parseCursorResetTime("You've hit your usage limit")).toBeUndefined();
  });
});
