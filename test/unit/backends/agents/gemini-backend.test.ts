import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import { GEMINI_ARG_PROMPT_MAX_BYTES, geminiBackend } from '../../../../src/backends/agents/gemini.ts';
import {
  classifyGeminiExit,
  GEMINI_EXIT,
  parseGeminiResetTime,
} from '../../../../src/backends/parsers/gemini-errors.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { ROOT } from '../../../helpers/workspace.ts';

/**
 * Real `gemini -o stream-json` output (@google/gemini-cli 0.61.0) against the scripted model server,
 * each with the exit code the real CLI had.
 */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'gemini');
const GEMINI = join(ROOT, 'node_modules', '.bin', 'gemini');

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const fixtureLines = (name: string): string[] => fixture(`${name}.jsonl`).split('\n').filter(Boolean);

function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = geminiBackend.createParser();
  const events = lines.flatMap((l) => parser.parseLine(l));
  return { events, finalText: parser.finalText() };
}

function exitInfo(events: AgentEvent[], exitCode: number | null, extra: Partial<ExitInfo> = {}): ExitInfo {
  return { exitCode, signal: null, killedBy: null, stdoutTail: '', stderrTail: '', events, ...extra };
}

const classifyFixture = (name: string, exitCode: number, now?: number) =>
  classifyGeminiExit(exitInfo(parse(fixtureLines(name)).events, exitCode), now);

function metered(events: AgentEvent[]): UsageMeter {
  const meter = new UsageMeter();
  for (const e of events) meter.add(e);
  return meter;
}

const config = (cli: Record<string, unknown> = {}) =>
  configSchema.parse({ cli: { backend: 'gemini', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  geminiBackend.buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['-o', 'stream-json', '--yolo', '--skip-trust'];

describe('gemini invocation', () => {
  it('runs gemini headless with stream-json, auto-approval and a trusted workspace, the prompt as --prompt=', () => {
    const inv = invoke('do the thing');
    expect(inv.command).toBe('gemini');
    expect(inv.args).toEqual([...HEADLESS, '--prompt=do the thing']);
    expect(inv.stdin).toBeNull();
    expect(inv.env).toEqual({});
  });

  it('adds -m, cli.args and the extra args before the prompt; cli.command replaces the executable', () => {
    const inv = invoke('p', { command: '/opt/gemini', model: 'gemini-2.5-pro', args: ['--debug'] }, [
      '--include-directories',
      '/x',
    ]);
    expect(inv.command).toBe('/opt/gemini');
    expect(inv.args).toEqual([
      ...HEADLESS,
      '-m',
      'gemini-2.5-pro',
      '--debug',
      '--include-directories',
      '/x',
      '--prompt=p',
    ]);
  });

  it('a prompt that starts with "-" stays the value of --prompt (gemini rejects `-p "- item"`)', () => {
    expect(invoke('- item one\n- item two').args.at(-1)).toBe('--prompt=- item one\n- item two');
  });

  it('a prompt starting with "/" is not run as a slash command', () => {
    expect(invoke('/help me').args.at(-1)).toBe('--prompt=\n/help me');
    expect(invoke('// a comment').args.at(-1)).toBe('--prompt=// a comment');
    expect(invoke('/* block */').args.at(-1)).toBe('--prompt=/* block */');
  });

  it('a prompt too long for one argument goes on stdin, with an empty --prompt=', () => {
    const prompt = `${'x'.repeat(300_000)}\nEND`;
    const inv = invoke(prompt);
    expect(inv.args.at(-1)).toBe('--prompt=');
    expect(inv.stdin).toBe(prompt);
    expect(invoke('y'.repeat(GEMINI_ARG_PROMPT_MAX_BYTES)).stdin).toBeNull();
    // Bytes, not characters: 40 000 three-byte characters are 120 000 bytes.
    expect(invoke('€'.repeat(40_000)).stdin).not.toBeNull();
    // A NUL cannot be in an argument.
    expect(invoke('a\0b').stdin).toBe('a\0b');
  });

  it('leaves the approval mode to the user when cli.args choose one', () => {
    for (const args of [['--approval-mode', 'auto_edit'], ['--approval-mode=plan'], ['-y'], ['--yolo']]) {
      const inv = invoke('p', { args });
      expect(inv.args.filter((a) => a === '--yolo').length, args.join(' ')).toBe(
        args[0] === '--yolo' ? 1 : 0,
      );
    }
  });

  it('every flag it passes exists in the installed gemini --help', () => {
    const home = mkdtempSync(join(tmpdir(), 'ralph-gemini-help-'));
    try {
      const help = execFileSync(GEMINI, ['--help'], {
        encoding: 'utf8',
        env: {
          ...process.env,
          HOME: home,
          HTTPS_PROXY: 'http://127.0.0.1:9',
          HTTP_PROXY: 'http://127.0.0.1:9',
        },
      });
      const flags = invoke('p', { model: 'm' })
        .args.filter((a) => a.startsWith('-'))
        .map((a) => a.split('=')[0]!);
      expect(flags).toEqual(['-o', '--yolo', '--skip-trust', '-m', '--prompt']);
      for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
      expect(help).toMatch(/--output-format[^\n]*"stream-json"/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('gemini output parser (recorded)', () => {
  it('auto routing, a shell command and a file write: tool calls and results, the answer, session-total usage', () => {
    const { events, finalText } = parse(fixtureLines('auto-route-shell-and-write-file'));
    expect(events.map((e) => e.type)).toEqual([
      'system',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'text',
      'usage',
      'result',
    ]);
    // `auto` names no model; the result's stats do.
    expect(events[0]).toEqual({
      type: 'system',
      model: undefined,
      sessionId: '962d2156-e63b-4b33-b079-b1c40d173c7e',
    });
    expect(events[1]).toMatchObject({
      type: 'tool_call',
      name: 'run_shell_command',
      input: { command: 'echo one > one.txt && echo wrote' },
    });
    expect(events[2]).toMatchObject({ type: 'tool_result', output: 'wrote', isError: false });
    expect(events[3]).toMatchObject({ type: 'tool_call', name: 'write_file' });
    expect(events[4]).toMatchObject({ type: 'tool_result', output: '', isError: false });
    // The two streamed deltas are one message.
    expect(events[5]).toEqual({ type: 'text', text: 'All written.\nLOOP_COMPLETE' });
    expect(finalText).toBe('All written.\nLOOP_COMPLETE');
    // Gemini reports usage once, for the whole session: one usage event, keyed by the session.
    expect(events[6]).toMatchObject({
      type: 'usage',
      messageId: '962d2156-e63b-4b33-b079-b1c40d173c7e:session',
      model: 'gemini-3.8-flash',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      text: finalText,
      isError: false,
      model: 'gemini-3.8-flash', // the model that did the work, not the router's classifier
    });
    const meter = metered(events);
    // Session totals over both models (the classifier call included).
    expect(meter.totals()).toEqual({ input: 3146, output: 166, cache_read: 0, cache_write: 0, total: 3312 });
    expect(meter.costUsd).toBeUndefined();
    expect(classifyGeminiExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('thoughts never reach the output; cached and thinking tokens are counted', () => {
    const { events, finalText } = parse(fixtureLines('thoughts-and-cache'));
    expect(finalText).toBe('Thought it through.\nLOOP_COMPLETE');
    expect(JSON.stringify(events)).not.toContain('Planning');
    const meter = metered(events);
    // prompt 1000 (400 cached), candidates 30 + thoughts 70: output = total − prompt.
    expect(meter.totals()).toEqual({ input: 600, output: 100, cache_read: 400, cache_write: 0, total: 1100 });
    expect(meter.model).toBe('gemini-2.5-pro');
    expect(meter.contextPct()).toBe(0.1);
  });

  it('tool output, the prompt and the answer quoting quota messages are no limit', () => {
    const { events, finalText } = parse(fixtureLines('reads-limit-text'));
    const json = JSON.stringify(events);
    expect(json).toContain('You have exhausted your daily quota on this model.');
    // The prompt echo (role user) is not agent output.
    expect(json).not.toContain('TOOLS-TASK');
    expect(events.some((e) => e.type === 'rate_limit' || e.type === 'error')).toBe(false);
    // gemini's shell tool refuses $(…): a successful tool result that says so.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_result',
        output: 'Blocked: command substitution detected in shell command.',
      }),
    );
    expect(finalText).toMatch(/RESOURCE_EXHAUSTED\.\nLOOP_COMPLETE$/);
    expect(classifyGeminiExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
    // Even had gemini failed, what the agent read or wrote is never a limit.
    expect(classifyGeminiExit(exitInfo(events, 1)).kind).toBe('agent_error');
  });

  it('a 429 gemini retried (on stderr only) and then answered is success', () => {
    const { events, finalText } = parse(fixtureLines('retry-429-then-ok'));
    expect(finalText).toBe('Done.\nLOOP_COMPLETE');
    expect(classifyGeminiExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('a daily quota parks until the next midnight Pacific time', () => {
    const now = Date.UTC(2026, 10, 21, 7, 14); // 23:14 PST on Nov 20
    const { events } = parse(fixtureLines('daily-quota'));
    expect(events.filter((e) => e.type === 'rate_limit')).toHaveLength(1);
    const cls = classifyFixture('daily-quota', GEMINI_EXIT.http429, now);
    expect(cls.kind).toBe('rate_limit');
    expect(cls.kind === 'rate_limit' && cls.message).toMatch(
      /^\[API Error: You have exhausted your daily quota/,
    );
    expect(parseGeminiResetTime(cls.kind === 'rate_limit' ? cls.message : '', now)).toBe(
      Date.UTC(2026, 10, 21, 8, 0),
    );
  });

  it('a quota with a retry delay parks for that long', () => {
    const before = Date.now();
    const cls = classifyFixture('quota-retry-delay', GEMINI_EXIT.http429);
    expect(cls.kind).toBe('rate_limit');
    const resetAt = cls.kind === 'rate_limit' ? cls.resetAt : undefined;
    expect(resetAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it('429s until gemini gave up: a rate limit without a reset time', () => {
    expect(classifyFixture('rate-limit-429-exhausted', 173)).toEqual({
      kind: 'rate_limit',
      message: expect.stringContaining('Resource has been exhausted'),
      resetAt: undefined,
    });
  });

  it('an invalid API key (400), a refused caller (403) and a missing auth setup (41) are auth errors', () => {
    expect(classifyFixture('api-key-invalid', 400 & 0xff)).toMatchObject({
      kind: 'auth_error',
      message: expect.stringContaining('API key not valid'),
    });
    expect(classifyFixture('permission-denied-403', GEMINI_EXIT.http403)).toMatchObject({
      kind: 'auth_error',
    });
    expect(
      classifyGeminiExit(exitInfo([], 41, { stderrTail: fixture('missing-api-key.stderr.txt') })),
    ).toEqual({
      kind: 'auth_error',
      message:
        'When using Gemini API, you must specify the GEMINI_API_KEY environment variable. Update your environment and try again (no reload needed if using .env)!',
    });
    expect(
      classifyGeminiExit(exitInfo([], 41, { stderrTail: fixture('no-auth-method.stderr.txt') })),
    ).toEqual({ kind: 'auth_error', message: 'Invalid auth method selected.' });
  });

  it('an input over the model’s token limit is a context overflow', () => {
    expect(classifyFixture('context-overflow-400', 400 & 0xff)).toMatchObject({
      kind: 'context_overflow',
      message: expect.stringContaining('exceeds the maximum number of tokens allowed'),
    });
  });

  it('500s until gemini gave up: an agent error that names the status (transient for the loop)', () => {
    const cls = classifyFixture('server-error-500-exhausted', 500 & 0xff);
    expect(cls.kind).toBe('agent_error');
    expect(cls.kind === 'agent_error' && cls.message).toMatch(/"code":500/);
  });

  it('an empty model response: an error result although gemini exits 0', () => {
    const { events, finalText } = parse(fixtureLines('empty-response'));
    expect(finalText).toBe('');
    expect(events.at(-1)).toMatchObject({ type: 'result', isError: true });
    expect(classifyGeminiExit(exitInfo(events, 0))).toEqual({
      kind: 'agent_error',
      message:
        'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.',
    });
  });

  it('the session turn limit (exit 53) is an agent error', () => {
    expect(classifyFixture('max-session-turns', GEMINI_EXIT.turnLimit)).toEqual({
      kind: 'agent_error',
      message: expect.stringMatching(/^Reached max session turns/),
    });
  });
});

describe('gemini output parser (synthetic)', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const delta = (content: string) => line({ type: 'message', role: 'assistant', content, delta: true });

  it('the final text is what the assistant said after its last tool call', () => {
    const { events, finalText } = parse([
      delta('Let me look. '),
      line({ type: 'tool_use', tool_name: 'read_file', tool_id: 't1', parameters: { file_path: 'a' } }),
      line({
        type: 'tool_result',
        tool_id: 't1',
        status: 'error',
        error: { type: 'X', message: 'no such file' },
      }),
      delta('Done'),
      delta(' now.'),
    ]);
    expect(events).toEqual([
      { type: 'text', text: 'Let me look. ' },
      { type: 'tool_call', name: 'read_file', id: 't1', input: { file_path: 'a' } },
      { type: 'tool_result', id: 't1', output: 'no such file', isError: true },
    ]);
    expect(finalText).toBe('Done now.');
  });

  it('an assistant message without delta is a whole message', () => {
    const { events, finalText } = parse([line({ type: 'message', role: 'assistant', content: 'Whole.' })]);
    expect(events).toEqual([{ type: 'text', text: 'Whole.' }]);
    expect(finalText).toBe('Whole.');
  });

  it('a quota in gemini’s own error line (not its result) is a limit too', () => {
    const { events } = parse([
      line({
        type: 'error',
        severity: 'error',
        message: 'Quota exceeded for quota metric. Please retry in 20s.',
      }),
    ]);
    expect(classifyGeminiExit(exitInfo(events, 1), 5000)).toEqual({
      kind: 'rate_limit',
      message: 'Quota exceeded for quota metric. Please retry in 20s.',
      resetAt: 25_000,
    });
  });

  it('warnings are reported but are not the reason of a failure', () => {
    const { events } = parse([
      line({ type: 'error', severity: 'warning', message: 'Loop detected, stopping execution' }),
      line({ type: 'result', status: 'error', error: { type: 'X', message: 'boom' }, stats: {} }),
    ]);
    expect(events[0]).toEqual({ type: 'error', message: 'warning: Loop detected, stopping execution' });
    expect(classifyGeminiExit(exitInfo(events, 1))).toEqual({ kind: 'agent_error', message: 'boom' });
  });

  it('an answer that mentions a quota, in a run that failed otherwise, is not a limit', () => {
    const { events } = parse([
      delta('The log says: You have exhausted your daily quota. 429 RESOURCE_EXHAUSTED'),
      line({
        type: 'tool_result',
        tool_id: 't',
        status: 'success',
        output: '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}',
      }),
      line({ type: 'result', status: 'error', error: { type: 'X', message: 'fetch failed' }, stats: {} }),
    ]);
    expect(events.some((e) => e.type === 'rate_limit')).toBe(false);
    expect(classifyGeminiExit(exitInfo(events, 1))).toEqual({ kind: 'agent_error', message: 'fetch failed' });
  });

  it('an error result without an error message does not take the assistant text as its reason', () => {
    const { events, finalText } = parse([
      delta('API key not valid, says the README; the input token count (2000000) exceeds the maximum'),
      line({ type: 'result', status: 'error', stats: {} }),
    ]);
    expect(finalText).toMatch(/^API key not valid/);
    expect(events.at(-1)).toMatchObject({ type: 'result', isError: true, text: '' });
    expect(classifyGeminiExit(exitInfo(events, 0))).toEqual({
      kind: 'agent_error',
      message: 'gemini reported an error without a message',
    });
  });

  it('a prompt echo cut short when gemini exited early is not text; no result is a failure', () => {
    const parser = geminiBackend.createParser();
    const cut =
      '{"type":"message","timestamp":"2026-11-21T07:15:31.168Z","role":"user","content":"# Huge\\nLOOP_COMPL';
    expect(parser.parseLine(cut)).toEqual([]);
    expect(parser.finalText()).toBe('');
    expect(classifyGeminiExit(exitInfo([], 0))).toEqual({
      kind: 'agent_error',
      message: 'gemini exited without a result',
    });
  });

  it('non-JSON lines are text, not the final answer; blank lines are nothing', () => {
    const parser = geminiBackend.createParser();
    expect(parser.parseLine('hello')).toEqual([{ type: 'text', text: 'hello' }]);
    expect(parser.parseLine('  ')).toEqual([]);
    expect(parser.parseLine('{not json')).toEqual([{ type: 'text', text: '{not json' }]);
    expect(parser.finalText()).toBe('');
  });

  it('exit 173 (an HTTP 429) with its output lost is still a limit; 145 (401) an auth error', () => {
    expect(classifyGeminiExit(exitInfo([], 173, { stderrTail: 'Please retry in 30s.' }), 1000)).toEqual({
      kind: 'rate_limit',
      message: 'Please retry in 30s.',
      resetAt: 31_000,
    });
    expect(classifyGeminiExit(exitInfo([], 145)).kind).toBe('auth_error');
  });

  it('killed runs are killed, whatever they printed; signals and other exits are agent errors', () => {
    const { events } = parse(fixtureLines('daily-quota'));
    expect(
      classifyGeminiExit(exitInfo(events, null, { signal: 'SIGTERM', killedBy: 'iteration_timeout' })),
    ).toEqual({ kind: 'killed', reason: 'iteration_timeout' });
    expect(classifyGeminiExit(exitInfo([], null, { signal: 'SIGSEGV' }))).toEqual({
      kind: 'agent_error',
      message: 'gemini was killed by SIGSEGV',
    });
    expect(
      classifyGeminiExit(
        exitInfo([], 55, {
          stderrTail:
            'YOLO mode is enabled. All tool calls will be automatically approved.\n\x1b[31mGemini CLI is not running in a trusted directory.\x1b[0m\n',
        }),
      ),
    ).toEqual({ kind: 'agent_error', message: 'Gemini CLI is not running in a trusted directory.' });
    expect(classifyGeminiExit(exitInfo([], 2))).toEqual({
      kind: 'agent_error',
      message: 'gemini exited with code 2',
    });
  });
});

describe('parseGeminiResetTime', () => {
  const now = Date.UTC(2026, 10, 21, 12, 0);

  it('reads RetryInfo delays and daily quotas', () => {
    expect(parseGeminiResetTime('Please retry in 37.5s.', now)).toBe(now + 37_500);
    expect(parseGeminiResetTime('Suggested retry after 3600s.', now)).toBe(now + 3_600_000);
    expect(parseGeminiResetTime('Please retry in 250ms', now)).toBe(now + 250);
    // 04:00 PST: the next midnight Pacific is 08:00 UTC the next day.
    expect(parseGeminiResetTime('You have exhausted your daily quota on this model.', now)).toBe(
      Date.UTC(2026, 10, 22, 8, 0),
    );
  });

  it('names no time: undefined', () => {
    expect(parseGeminiResetTime('Resource has been exhausted (e.g. check quota).', now)).toBeUndefined();
  });
});
