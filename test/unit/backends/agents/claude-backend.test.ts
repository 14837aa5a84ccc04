import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import { classifyClaudeExit, claudeBackend, claudeEnv } from '../../../../src/backends/agents/claude.ts';
import { parseResetTime } from '../../../../src/backends/parsers/reset-time.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { makeWorkspace, ROOT } from '../../../helpers/workspace.ts';
import { anthropicView, claudeTool, requestCwd } from '../../../support/model-server/anthropic.ts';

/** Real `claude -p --output-format stream-json --verbose` output (2.1.329) against the scripted model server. */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'claude');

function fixtureLines(name: string): string[] {
  return readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);
}

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = claudeBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

/** Classifies a recorded run with the exit code the real CLI had. */
function classifyFixture(name: string, exitCode: number) {
  return classifyClaudeExit(exitInfo(parse(fixtureLines(name)).events, exitCode));
}

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'claude', ...cli } });

describe('claude invocation', () => {
  it('runs claude headless with stream-json, skipping permissions, the prompt on stdin', () => {
    const inv = claudeBackend.buildInvocation({
      prompt: 'do the thing',
      config: config(),
      workspace: '/ws',
      extraArgs: [],
    });
    expect(inv.command).toBe('claude');
    expect(inv.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
    ]);
    expect(inv.stdin).toBe('do the thing');
  });

  it('adds --model, cli.args and the extra args, in that order; cli.command replaces the executable', () => {
    const inv = claudeBackend.buildInvocation({
      prompt: 'p',
      config: config({ command: '/opt/claude', model: 'sonnet', args: ['--max-turns', '5'] }),
      workspace: '/ws',
      extraArgs: ['--add-dir', '/x'],
    });
    expect(inv.command).toBe('/opt/claude');
    expect(inv.args.slice(5)).toEqual(['--model', 'sonnet', '--max-turns', '5', '--add-dir', '/x']);
  });

  it('a prompt of any size stays out of argv', () => {
    const prompt = `${'x'.repeat(300_000)}\nEND`;
    const inv = claudeBackend.buildInvocation({ prompt, config: config(), workspace: '/ws', extraArgs: [] });
    expect(inv.stdin).toBe(prompt);
    expect(inv.args.join(' ').length).toBeLessThan(200);
  });

  it('sets IS_SANDBOX=1 only as root', () => {
    expect(claudeEnv(true)).toEqual({ IS_SANDBOX: '1' });
    expect(claudeEnv(false)).toEqual({});
    const inv = claudeBackend.buildInvocation({
      prompt: 'p',
      config: config(),
      workspace: '/ws',
      extraArgs: [],
    });
    expect(inv.env).toEqual(claudeEnv(process.getuid?.() === 0));
  });
});

describe('parsing real claude output', () => {
  it('a Bash tool session: tool call, tool result, usage, result with cost', () => {
    const { events, finalText } = parse(fixtureLines('bash-tool-session'));
    expect(events[0]).toMatchObject({ type: 'system', model: 'claude-opus-5-5' });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_call',
        name: 'Bash',
        input: expect.objectContaining({ command: expect.stringContaining('hello.txt') }),
      }),
    );
    expect(events).toContainEqual({
      type: 'tool_result',
      id: expect.any(String),
      output: 'created',
      isError: false,
    });
    const result = events.at(-1);
    expect(result).toMatchObject({
      type: 'result',
      isError: false,
      text: 'Created hello.txt.\nLOOP_COMPLETE',
    });
    expect(finalText).toBe('Created hello.txt.\nLOOP_COMPLETE');
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals().input).toBe(2400);
    expect(meter.totals().output).toBe(160);
    expect(meter.costUsd).toBeGreaterThan(0);
  });

  it('the Write tool gets an absolute path', () => {
    const { events } = parse(fixtureLines('write-tool-session'));
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_call',
        name: 'Write',
        input: { file_path: '/workspace/notes/a.md', content: '# A\n' },
      }),
    );
  });

  it('a retried 429 is a rate_limit event marked retrying, and the run succeeds', () => {
    const { events } = parse(fixtureLines('retry-429-then-success'));
    expect(events).toContainEqual({
      type: 'rate_limit',
      message: expect.stringMatching(/^API 429 rate_limit: retry 1\/\d+ in/),
      retrying: true,
    });
    expect(classifyFixture('retry-429-then-success', 0)).toEqual({ kind: 'success' });
  });

  it('a subscription usage limit carries its reset time from the rate_limit_event', () => {
    const lines = fixtureLines('usage-limit-oauth');
    const resetsAt = (
      JSON.parse(lines.find((l) => l.includes('"rate_limit_event"'))!) as {
        rate_limit_info: { resetsAt: number };
      }
    ).rate_limit_info.resetsAt;
    const { events } = parse(lines);
    expect(events).toContainEqual({
      type: 'rate_limit',
      message: 'five_hour limit reached',
      resetAt: resetsAt * 1000,
      retrying: false,
    });
    expect(classifyFixture('usage-limit-oauth', 1)).toEqual({
      kind: 'rate_limit',
      message: expect.stringMatching(/^You've hit your 5-hour limit · resets \d{1,2}:\d{2}[ap]m \(UTC\)$/),
      resetAt: resetsAt * 1000,
    });
  });

  it('an allowed / allowed_warning rate_limit_event is not a limit', () => {
    const { events } = parse(fixtureLines('usage-allowed-warning-oauth'));
    expect(events.some((e) => e.type === 'rate_limit')).toBe(false);
    expect(classifyFixture('usage-allowed-warning-oauth', 0)).toEqual({ kind: 'success' });
  });

  it('an API error result is an error even though its subtype is success', () => {
    const lines = fixtureLines('server-error-500-exhausted');
    expect(lines.at(-1)).toContain('"subtype":"success"');
    expect(parse(lines).events.at(-1)).toMatchObject({ type: 'result', isError: true });
  });
});

describe('classifying real claude exits', () => {
  it('429s the CLI gave up on: rate limit (no reset time given)', () => {
    expect(classifyFixture('rate-limit-429-exhausted', 1)).toEqual({
      kind: 'rate_limit',
      message: expect.stringContaining('API Error: Request rejected (429)'),
      resetAt: undefined,
    });
  });

  it('529 overloaded the CLI gave up on: rate limit', () => {
    expect(classifyFixture('overloaded-529-exhausted', 1)).toMatchObject({ kind: 'rate_limit' });
  });

  it('500s the CLI gave up on: agent error', () => {
    expect(classifyFixture('server-error-500-exhausted', 1)).toEqual({
      kind: 'agent_error',
      message: expect.stringContaining('API Error: 500'),
    });
  });

  it('401 invalid key and no credentials at all: auth error', () => {
    expect(classifyFixture('auth-401', 1)).toEqual({
      kind: 'auth_error',
      message: 'Invalid API key · Fix external API key',
    });
    expect(classifyFixture('not-logged-in', 1)).toEqual({
      kind: 'auth_error',
      message: 'Not logged in · Please run /login',
    });
  });

  it('prompt is too long: context overflow', () => {
    expect(classifyFixture('prompt-too-long', 1)).toEqual({
      kind: 'context_overflow',
      message: expect.stringMatching(/^Prompt is too long/),
    });
  });

  it('a tool result and a final answer quoting limit messages are not a limit', () => {
    const { events } = parse(fixtureLines('tool-result-mentions-limit'));
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_result',
        output: expect.stringContaining("You've hit your 5-hour limit"),
      }),
    );
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    expect(classifyFixture('tool-result-mentions-limit', 0)).toEqual({ kind: 'success' });
    // Even when the run then fails for another reason, what the agent read is not a limit.
    expect(classifyClaudeExit(exitInfo(events, 1, { stderrTail: 'Segmentation fault\n' }))).toEqual({
      kind: 'agent_error',
      message: 'Segmentation fault',
    });
  });
});

const result = (text: string, isError: boolean): AgentEvent => ({ type: 'result', text, isError });

describe('classifyClaudeExit (synthetic)', () => {
  const now = Date.UTC(2026, 10, 21, 6, 53);

  it('a 5-hour limit mentioned in a tool result of a failed run is not a limit', () => {
    const events: AgentEvent[] = [
      { type: 'tool_call', name: 'Bash', input: { command: 'cat NOTES.md' } },
      {
        type: 'tool_result',
        output: "Remember: You've hit your 5-hour limit · resets 3pm (UTC)",
        isError: false,
      },
      { type: 'text', text: 'Claude AI usage limit reached|1700000000' },
    ];
    expect(classifyClaudeExit(exitInfo(events, 1), now)).toEqual({
      kind: 'agent_error',
      message: 'claude exited with 1',
    });
    expect(
      classifyClaudeExit(exitInfo([...events, result('Noted the 5-hour limit.', false)], 0), now),
    ).toEqual({
      kind: 'success',
    });
  });

  it('the legacy "Claude AI usage limit reached|<epoch>" result is a limit with that reset time', () => {
    const info = exitInfo([result('Claude AI usage limit reached|1700000000', false)], 0);
    expect(classifyClaudeExit(info, now)).toEqual({
      kind: 'rate_limit',
      message: 'Claude AI usage limit reached',
      resetAt: 1_700_000_000_000,
    });
  });

  it('an error result "You\'ve hit your limit · resets …" without structured events: limit, reset parsed', () => {
    const info = exitInfo([result("You've hit your limit · resets 3pm (America/New_York)", true)], 1);
    expect(classifyClaudeExit(info, now)).toEqual({
      kind: 'rate_limit',
      message: "You've hit your limit · resets 3pm (America/New_York)",
      resetAt: Date.UTC(2026, 10, 21, 20, 0), // 3pm EST = 20:00 UTC
    });
  });

  it.each([
    "You've hit your session limit · resets 3pm (UTC)",
    "You've hit your org's monthly usage limit",
    'You’ve hit your weekly limit · resets Nov 24, 7:07am (UTC)',
    'Your organization has reached its monthly usage limit. Contact your admin.',
  ])('the newest limit wordings as an error result are limits: %s', (text) => {
    expect(classifyClaudeExit(exitInfo([result(text, true)], 1), now)).toMatchObject({
      kind: 'rate_limit',
      message: text,
    });
  });

  it('the same text in a successful result is the agent talking, not a limit', () => {
    const info = exitInfo([result("You've hit your limit · resets 3pm (UTC)", false)], 0);
    expect(classifyClaudeExit(info, now)).toEqual({ kind: 'success' });
  });

  it('an error result for an invalid key / a too-long prompt (older CLI, no structured error)', () => {
    expect(
      classifyClaudeExit(exitInfo([result('Invalid API key · Please run /login', true)], 1), now),
    ).toMatchObject({
      kind: 'auth_error',
    });
    expect(
      classifyClaudeExit(
        exitInfo([result('API Error: 400 prompt is too long: 210000 tokens > 200000', true)], 1),
        now,
      ),
    ).toMatchObject({ kind: 'context_overflow' });
  });

  it('killed by Ralph (timeout, cost cap, stop) is killed, whatever the output says', () => {
    const info = exitInfo([{ type: 'rate_limit', message: 'x', retrying: false }], null, {
      signal: 'SIGTERM',
      killedBy: 'iteration_timeout',
    });
    expect(classifyClaudeExit(info, now)).toEqual({ kind: 'killed', reason: 'iteration_timeout' });
  });

  it('a signal Ralph did not send, and exit 0 without a result, are agent errors', () => {
    expect(classifyClaudeExit(exitInfo([], null, { signal: 'SIGSEGV' }), now)).toEqual({
      kind: 'agent_error',
      message: 'claude was terminated by SIGSEGV',
    });
    expect(classifyClaudeExit(exitInfo([], 0), now)).toEqual({
      kind: 'agent_error',
      message: 'claude exited without a result',
    });
  });

  it('only retries that ended in success: success; retries then a failure of another kind: that failure', () => {
    const retry: AgentEvent = {
      type: 'rate_limit',
      message: 'API 429 rate_limit: retry 1/10',
      retrying: true,
    };
    expect(classifyClaudeExit(exitInfo([retry, result('ok', false)], 0), now)).toEqual({ kind: 'success' });
    const failed = exitInfo(
      [
        retry,
        { type: 'error', message: 'server_error (HTTP 500): API Error: 500' },
        result('API Error: 500', true),
      ],
      1,
    );
    expect(classifyClaudeExit(failed, now)).toEqual({ kind: 'agent_error', message: 'API Error: 500' });
  });
});

describe('parseResetTime', () => {
  const now = Date.UTC(2026, 10, 21, 6, 53); // Sat Nov 21 2026 06:53 UTC

  it('a time of day: its next occurrence in the named zone', () => {
    expect(parseResetTime("You've hit your 5-hour limit · resets 7:53am (UTC)", now)).toBe(
      Date.UTC(2026, 10, 21, 7, 53),
    );
    expect(parseResetTime('resets 12:27pm (UTC)', now)).toBe(Date.UTC(2026, 10, 21, 12, 27));
    expect(parseResetTime('resets 6am (UTC)', now)).toBe(Date.UTC(2026, 10, 22, 6, 0));
    expect(parseResetTime('resets 12am (UTC)', now)).toBe(Date.UTC(2026, 10, 22, 0, 0));
    expect(parseResetTime('resets 3:54am (America/New_York)', now)).toBe(Date.UTC(2026, 10, 21, 8, 54));
  });

  it('a date and time', () => {
    expect(parseResetTime("You've hit your weekly limit · resets Nov 24, 7:07am (UTC)", now)).toBe(
      Date.UTC(2026, 10, 24, 7, 7),
    );
    expect(parseResetTime('resets Jan 2, 9pm (UTC)', now)).toBe(Date.UTC(2027, 0, 2, 21, 0));
  });

  it('across a DST change the zone offset of the reset day is used', () => {
    const march = Date.UTC(2026, 2, 7, 12, 0); // Sat before the US switch to EDT (Mar 8)
    expect(parseResetTime('resets Mar 9, 3pm (America/New_York)', march)).toBe(Date.UTC(2026, 2, 9, 19, 0));
  });

  it('an epoch after a bar, no time, or an unknown zone', () => {
    expect(parseResetTime('Claude AI usage limit reached|1700000000', now)).toBe(1_700_000_000_000);
    expect(parseResetTime('rate limited, try later', now)).toBeUndefined();
    expect(parseResetTime('resets 3pm (Mars/Olympus)', now)).toBeUndefined();
  });
});

describe('scripted Anthropic protocol (test support)', () => {
  const reminder = { type: 'text', text: '<system-reminder>\nAttribution…\n</system-reminder>\n' };
  const body = {
    messages: [
      { role: 'user', content: [reminder, { type: 'text', text: 'Build it. TASK-1\n' }] },
      {
        role: 'system',
        content: '# Environment\n - Primary working directory: /tmp/ws-1\n - Is a git repository: false',
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }] },
    ],
  };

  it('the prompt is the whole latest user message that is not only tool results; tool rounds follow it', () => {
    expect(anthropicView(body)).toEqual({ prompt: `${reminder.text}\nBuild it. TASK-1\n`, toolRounds: 1 });
    expect(anthropicView({ messages: [{ role: 'user', content: 'plain' }] })).toEqual({
      prompt: 'plain',
      toolRounds: 0,
    });
    expect(requestCwd(body)).toBe('/tmp/ws-1');
  });

  it('write_file: Write with an absolute path for a new file, a Bash heredoc for an existing one', () => {
    const dir = makeWorkspace({ 'old.txt': 'old\n' });
    expect(claudeTool({ kind: 'write_file', path: 'new/b.txt', content: 'b\n' }, dir)).toEqual({
      name: 'Write',
      input: { file_path: join(dir, 'new/b.txt'), content: 'b\n' },
    });
    const existing = claudeTool({ kind: 'write_file', path: 'old.txt', content: 'new\n' }, dir);
    expect(existing.name).toBe('Bash');
    // Run it as the Bash tool would: the file is replaced.
    execFileSync('bash', ['-c', String(existing.input.command)]);
    expect(readFileSync(join(dir, 'old.txt'), 'utf8')).toBe('new\n');
    expect(claudeTool({ kind: 'shell', command: 'ralph emit x' }, undefined)).toEqual({
      name: 'Bash',
      input: { command: 'ralph emit x', description: expect.any(String) },
    });
  });
});
