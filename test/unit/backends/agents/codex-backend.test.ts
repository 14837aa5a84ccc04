import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import {
  CODEX_ARG_PROMPT_MAX_BYTES,
  codexBackend,
  createCodexBackend,
} from '../../../../src/backends/agents/codex.ts';
import { classifyCodexExit, parseCodexResetTime } from '../../../../src/backends/parsers/codex-errors.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/** Real `codex exec --json` output (codex-cli 0.169.0) against the scripted model server. */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'codex');
const CODEX = join(ROOT, 'node_modules', '.bin', 'codex');

function fixtureLines(name: string): string[] {
  return readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);
}

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = codexBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

/** Classifies a recorded run with the exit code the real CLI had. */
function classifyFixture(name: string, exitCode: number) {
  return classifyCodexExit(exitInfo(parse(fixtureLines(name)).events, exitCode));
}

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'codex', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  codexBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = [
  'exec',
  '--json',
  '--skip-git-repo-check',
  '-c',
  'allow_login_shell=false',
  '--dangerously-bypass-approvals-and-sandbox',
];

describe('codex invocation', () => {
  it('runs codex exec headless with JSONL, no sandbox or approvals, the prompt as the last argument', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('codex');
    expect(inv.args).toEqual([...HEADLESS, '--', 'do the thing']);
    expect(inv.stdin).toBeNull();
    expect(inv.env).toEqual({});
  });

  it('adds -m, cli.args and the extra args before the prompt; cli.command replaces the executable', () => {
    const inv = invoke('p', { command: '/opt/codex', model: 'gpt-5.5', args: ['--ephemeral'] }, [
      '--add-dir',
      '/x',
    ]);
    expect(inv.command).toBe('/opt/codex');
    expect(inv.args).toEqual([...HEADLESS, '-m', 'gpt-5.5', '--ephemeral', '--add-dir', '/x', '--', 'p']);
  });

  it('a prompt that starts with "-" is still the prompt', () => {
    expect(invoke('- item one').args.slice(-2)).toEqual(['--', '- item one']);
  });

  it('a prompt too long for one argument goes on stdin via "-"', () => {
    const prompt = `${'x'.repeat(300_000)}\nEND`;
    const inv = invoke(prompt);
    expect(inv.args.slice(-2)).toEqual(['--', '-']);
    expect(inv.stdin).toBe(prompt);
    const atLimit = 'y'.repeat(CODEX_ARG_PROMPT_MAX_BYTES);
    expect(invoke(atLimit).stdin).toBeNull();
    // Bytes, not characters: 40 000 three-byte characters are 120 000 bytes.
    expect(invoke('€'.repeat(40_000)).stdin).not.toBeNull();
  });

  it('leaves the sandbox to the user when cli.args choose one', () => {
    for (const args of [['--sandbox', 'workspace-write'], ['-s', 'read-only'], ['--sandbox=read-only']]) {
      expect(invoke('p', { args }).args).not.toContain('--dangerously-bypass-approvals-and-sandbox');
    }
  });

  it('every flag it passes exists in the installed codex exec --help', () => {
    const help = execFileSync(CODEX, ['exec', '--help'], { encoding: 'utf8' });
    const flags = invoke('p', { model: 'm' }).args.filter((a) => a.startsWith('-') && a !== '--');
    expect(flags.length).toBeGreaterThan(4);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
  });
});

describe('codex output parser (recorded)', () => {
  it('a shell command, then the answer: tool call and result, usage, result = the last agent message', () => {
    const { events, finalText } = parse(fixtureLines('shell-write-file'));
    expect(events.map((e) => e.type)).toEqual([
      'system',
      'tool_call',
      'tool_result',
      'text',
      'usage',
      'result',
    ]);
    expect(events[0]).toMatchObject({ type: 'system', sessionId: '01a1fce5-5cb5-73c0-b285-c30b93f40f02' });
    expect(events[1]).toMatchObject({ type: 'tool_call', name: 'shell', id: 'item_0' });
    expect(JSON.stringify(events[1])).toContain('hello.txt');
    expect(events[2]).toMatchObject({ type: 'tool_result', id: 'item_0', isError: false });
    expect(finalText).toBe('Created hello.txt.\nLOOP_COMPLETE');
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      isError: false,
      text: finalText,
    });
    expect(events.some((e) => e.type === 'result' && e.costUsd !== undefined)).toBe(false);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({ input: 2400, output: 80, cache_read: 0, cache_write: 0, total: 2480 });
    expect(meter.costUsd).toBeUndefined();
    expect(classifyCodexExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('reasoning is not text; file changes and failed commands are tool calls with results', () => {
    const { events, finalText } = parse(fixtureLines('tools-and-reasoning'));
    const texts = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    expect(texts).toEqual([
      'Creating the file now.',
      'All done. The file mentions a usage limit.\nLOOP_COMPLETE',
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_call', name: 'file_change', id: 'item_2' }),
    );
    expect(events).toContainEqual({
      type: 'tool_result',
      id: 'item_2',
      output: 'add /tmp/cx/ws/hello.txt',
      isError: false,
    });
    expect(events).toContainEqual({ type: 'tool_result', id: 'item_3', output: 'hi there\n', isError: true });
    // Each tool call is announced once, though codex reports it as started and completed.
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(2);
    expect(finalText).toBe('All done. The file mentions a usage limit.\nLOOP_COMPLETE');
    // The agent's answer mentions a usage limit: that is no limit.
    expect(events.some((e) => e.type === 'rate_limit')).toBe(false);
    expect(classifyCodexExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('a command output and an answer quoting limit messages are no limit', () => {
    const { events } = parse(fixtureLines('reads-limit-text'));
    expect(JSON.stringify(events)).toContain("You've hit your usage limit. Try again at 3:00 PM.");
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(classifyCodexExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    // Even had codex exited non-zero, agent text is never read as a limit.
    expect(classifyCodexExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('a 429 codex retried and then succeeded is a retrying notice, and success', () => {
    const { events, finalText } = parse(fixtureLines('retry-429-then-ok'));
    expect(events).toContainEqual({
      type: 'rate_limit',
      message: 'Reconnecting... 1/1 (exceeded retry limit, last status: 429 Too Many Requests)',
      retrying: true,
    });
    expect(finalText).toBe('Recovered.\nLOOP_COMPLETE');
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });

  it('429s until codex gave up: a rate limit without a reset time', () => {
    const { events } = parse(fixtureLines('retry-limit-429'));
    expect(events.at(-1)).toMatchObject({ type: 'result', isError: true });
    expect(classifyFixture('retry-limit-429', 1)).toEqual({
      kind: 'rate_limit',
      message: 'exceeded retry limit, last status: 429 Too Many Requests',
    });
  });

  it('a usage limit with a reset date parks until then (local time, plus the truncated minute)', () => {
    const { events } = parse(fixtureLines('usage-limit-reset'));
    const limits = events.filter((e) => e.type === 'rate_limit');
    expect(limits).toHaveLength(1); // the error and turn.failed carry the same message
    const resetAt = new Date(2026, 10, 25, 9, 46).getTime() + 60_000;
    expect(limits[0]).toMatchObject({ resetAt });
    const cls = classifyFixture('usage-limit-reset', 1);
    expect(cls).toMatchObject({ kind: 'rate_limit', resetAt });
    expect(cls.kind === 'rate_limit' && cls.message).toMatch(/^You’ve hit your usage limit/);
  });

  it('an organisation’s monthly limit is a usage limit', () => {
    expect(classifyFixture('org-monthly-limit', 1)).toMatchObject({
      kind: 'rate_limit',
      message: 'Your organization has reached its monthly usage limit. Ask an admin to raise it.',
    });
  });

  it('a usage limit without a reset time is still a limit', () => {
    expect(classifyFixture('usage-limit-no-reset', 1)).toEqual({
      kind: 'rate_limit',
      message: 'You’ve hit your usage limit. Try again later.',
      resetAt: undefined,
    });
  });

  it('a rejected key and a missing key variable are auth errors', () => {
    expect(classifyFixture('auth-401', 1)).toMatchObject({
      kind: 'auth_error',
      message: expect.stringContaining('401 Unauthorized'),
    });
    expect(classifyFixture('missing-env-key', 1)).toEqual({
      kind: 'auth_error',
      message: 'Missing environment variable: `RALPH_TEST_OPENAI_KEY`.',
    });
  });

  it('an exhausted context window is a context overflow', () => {
    expect(classifyFixture('context-overflow', 1)).toMatchObject({ kind: 'context_overflow' });
  });

  it('a write_file tool call arrives as a quoted heredoc, written byte for byte', () => {
    const { events } = parse(fixtureLines('write-file-heredoc'));
    expect(JSON.stringify(events[1])).toContain("cat > 'docs/notes.md' <<'RALPH_EOF'");
    expect(classifyCodexExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });
});

describe('codex output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);

  it('splits cached input tokens out of input_tokens', () => {
    const { events } = parse([
      line({ type: 'thread.started', thread_id: 't1' }),
      line({ type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'ok' } }),
      line({
        type: 'turn.completed',
        usage: {
          input_tokens: 1000,
          cached_input_tokens: 800,
          output_tokens: 20,
          reasoning_output_tokens: 5,
        },
      }),
    ]);
    expect(events.find((e) => e.type === 'usage')).toMatchObject({
      usage: { inputTokens: 200, cacheReadTokens: 800, outputTokens: 20, cacheWriteTokens: 0 },
      messageId: 't1:turn-1',
    });
  });

  it('reports the model it was created with, for the context-window %', () => {
    const parser = createCodexBackend({ model: 'gpt-5.5' }).createParser();
    const events = [
      line({ type: 'thread.started', thread_id: 't1' }),
      line({ type: 'turn.completed', usage: { input_tokens: 40_000, output_tokens: 10 } }),
    ].flatMap((l) => parser.parseLine(l));
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.model).toBe('gpt-5.5');
    expect(meter.contextPct()).toBe(10);
  });

  it('MCP tool calls and web searches are tool calls', () => {
    const item = {
      id: 'item_1',
      type: 'mcp_tool_call',
      server: 'docs',
      tool: 'search',
      arguments: { q: 'x' },
      result: null,
      error: null,
      status: 'in_progress',
    };
    const { events } = parse([
      line({ type: 'item.started', item }),
      line({
        type: 'item.completed',
        item: { ...item, status: 'completed', result: { content: [{ type: 'text', text: 'found' }] } },
      }),
      line({ type: 'item.completed', item: { id: 'item_2', type: 'web_search', query: 'ralph' } }),
    ]);
    expect(events).toEqual([
      { type: 'tool_call', name: 'docs.search', id: 'item_1', input: { q: 'x' } },
      { type: 'tool_result', id: 'item_1', output: 'found', isError: false },
      { type: 'tool_call', name: 'web_search', id: 'item_2', input: { query: 'ralph' } },
    ]);
  });

  it('non-JSON lines are text, not the final answer; blank lines are nothing', () => {
    const parser = codexBackend.createParser();
    expect(parser.parseLine('hello')).toEqual([{ type: 'text', text: 'hello' }]);
    expect(parser.parseLine('  ')).toEqual([]);
    expect(parser.parseLine('{not json')).toEqual([{ type: 'text', text: '{not json' }]);
    expect(parser.finalText()).toBe('');
  });

  it('an agent message that mentions a usage limit, in a failed run, is not a limit', () => {
    const { events } = parse([
      line({
        type: 'item.completed',
        item: {
          id: 'item_0',
          type: 'agent_message',
          text: "The log says: You've hit your usage limit. Try again at 3:00 PM.",
        },
      }),
      line({ type: 'error', message: 'stream disconnected before completion: connection reset' }),
      line({
        type: 'turn.failed',
        error: { message: 'stream disconnected before completion: connection reset' },
      }),
    ]);
    expect(classifyCodexExit(exitInfo(events, 1))).toEqual({
      kind: 'agent_error',
      message: 'stream disconnected before completion: connection reset',
    });
  });

  it('killed runs are killed, whatever they printed', () => {
    const { events } = parse(fixtureLines('usage-limit-reset'));
    expect(
      classifyCodexExit(exitInfo(events, null, { signal: 'SIGTERM', killedBy: 'iteration_timeout' })),
    ).toEqual({
      kind: 'killed',
      reason: 'iteration_timeout',
    });
  });

  it('a failure before the stream is read from codex stderr; otherwise the exit code', () => {
    expect(
      classifyCodexExit(
        exitInfo([], 1, { stderrTail: 'Error: Missing environment variable: `OPENAI_API_KEY`.\n' }),
      ),
    ).toMatchObject({ kind: 'auth_error' });
    expect(
      classifyCodexExit(exitInfo([], 1, { stderrTail: 'Error loading config.toml: bad key\n' })),
    ).toEqual({ kind: 'agent_error', message: 'Error loading config.toml: bad key' });
    expect(classifyCodexExit(exitInfo([], 2))).toEqual({
      kind: 'agent_error',
      message: 'codex exited with code 2',
    });
    expect(classifyCodexExit(exitInfo([], null, { signal: 'SIGSEGV' }))).toEqual({
      kind: 'agent_error',
      message: 'codex was killed by SIGSEGV',
    });
  });
});

describe('parseCodexResetTime', () => {
  const now = new Date(2026, 10, 21, 7, 0).getTime();

  it('reads a time of today, a full date, and older relative forms', () => {
    expect(parseCodexResetTime('… or try again at 10:26 PM.', now)).toBe(
      new Date(2026, 10, 21, 22, 26).getTime() + 60_000,
    );
    expect(parseCodexResetTime('You’ve hit your usage limit. Try again at 12:05 AM.', now)).toBe(
      new Date(2026, 10, 21, 0, 5).getTime() + 60_000,
    );
    expect(parseCodexResetTime('try again at Dec 1st, 2026 12:55 PM.', now)).toBe(
      new Date(2026, 11, 1, 12, 55).getTime() + 60_000,
    );
    expect(parseCodexResetTime('Upgrade to Pro or try again in 4 days 3 hours.', now)).toBe(
      now + 4 * 86_400_000 + 3 * 3_600_000,
    );
    expect(parseCodexResetTime('try again in 5 minutes', now)).toBe(now + 300_000);
  });

  it('printed before midnight, read after: yesterday’s clock', () => {
    const justAfterMidnight = new Date(2026, 10, 22, 0, 1).getTime();
    expect(parseCodexResetTime('try again at 11:59 PM.', justAfterMidnight)).toBe(
      new Date(2026, 10, 21, 23, 59).getTime() + 60_000,
    );
  });

  it('names no time: undefined', () => {
    expect(parseCodexResetTime('You’ve hit your usage limit. Try again later.', now)).toBeUndefined();
    expect(parseCodexResetTime('Quota exceeded. Check your plan and billing details.', now)).toBeUndefined();
  });
});
