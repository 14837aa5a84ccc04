import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageMeter } from '../../../../src/agent/usage-meter.ts';
import { createPiBackend, pi } from '../../../../src/backends/agents/pi.ts';
import { classifyPiExit } from '../../../../src/backends/parsers/pi-errors.ts';
import type { AgentEvent, ExitInfo } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import { makeWorkspace, ROOT } from '../../../helpers/workspace.ts';

/** Real `pi -p --mode json --no-session` output (@mariozechner/pi-coding-agent 0.73.1) against the scripted model server. */
const FIXTURES = join(ROOT, 'test', 'fixtures', 'pi');

const fixtureLines = (name: string): string[] =>
  readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean);

/** Every line parsed, then the end of the output (`flush`), as the agent-turn runner does. */
function parse(lines: string[]): { events: AgentEvent[]; finalText: string } {
  const parser = createPiBackend().createParser();
  const events = [...lines.flatMap((l) => parser.parseLine(l)), ...(parser.flush?.() ?? [])];
  return { events, finalText: parser.finalText() };
}

const exitInfo = (
  events: AgentEvent[],
  exitCode: number | null,
  extra: Partial<ExitInfo> = {},
): ExitInfo => ({
  exitCode,
  signal: null,
  killedBy: null,
  stdoutTail: '',
  stderrTail: '',
  events,
  ...extra,
});

/** Classifies a recorded run with the exit code the real CLI had (and its stderr, when recorded). */
function classifyFixture(name: string, exitCode: number) {
  const stderrFile = join(FIXTURES, `${name}.stderr.txt`);
  const stderrTail = existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : '';
  return classifyPiExit(exitInfo(parse(fixtureLines(name)).events, exitCode, { stderrTail }));
}

const config = (cli: Record<string, unknown> = {}) => configSchema.parse({ cli: { backend: 'pi', ...cli } });
const invoke = (prompt: string, cli: Record<string, unknown> = {}, extraArgs: string[] = []) =>
  createPiBackend().buildInvocation({ prompt, config: config(cli), workspace: '/ws', extraArgs });

const HEADLESS = ['-p', '--mode', 'json', '--no-session'];

describe('pi invocation', () => {
  it('runs pi -p with JSON events and no session file; the prompt on stdin, byte for byte', () => {
    const prompt = `- starts with a dash\n${'x'.repeat(300_000)}\n"quoted" END`;
    const inv = invoke(prompt);
    expect(inv).toEqual({ command: 'pi', args: HEADLESS, stdin: prompt, env: {} });
  });

  it('adds --model, then cli.args and the extra args (pi takes the last --model); cli.command replaces the executable', () => {
    const inv = invoke(
      'p',
      { command: '/opt/pi', model: 'anthropic/claude-sonnet-4-5', args: ['--thinking', 'high'] },
      ['--model', 'openai/gpt-5'],
    );
    expect(inv.command).toBe('/opt/pi');
    expect(inv.args).toEqual([
      ...HEADLESS,
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--thinking',
      'high',
      '--model',
      'openai/gpt-5',
    ]);
  });

  it('every flag it passes exists in the installed pi --help', () => {
    const home = makeWorkspace();
    const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'pi'), ['--help'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, 'agent'), PI_OFFLINE: '1' },
    });
    const help = run.stdout + run.stderr;
    const flags = invoke('p', { model: 'a/b' }).args.filter((a) => a.startsWith('-'));
    expect(flags).toEqual(['-p', '--mode', '--no-session', '--model']);
    for (const flag of flags) expect(help, flag).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,]`, 'm'));
    expect(help).toMatch(/--mode <mode>\s+Output mode: text \(default\), json, or rpc/);
  });

  it('ralph plan opens the TUI with the prompt as its first message', () => {
    expect(pi.interactive?.(config({ model: 'a/b' }), 'plan it', { extraArgs: ['-x'] })).toEqual({
      command: 'pi',
      args: ['--model', 'a/b', '-x', 'plan it'],
    });
  });
});

describe('pi output parser (recorded)', () => {
  it('a shell command, then the answer: tool call and result, usage and cost per model call, the result', () => {
    const { events, finalText } = parse(fixtureLines('shell-then-text'));
    expect(events.map((e) => e.type)).toEqual([
      'system',
      'usage',
      'tool_call',
      'tool_result',
      'usage',
      'text',
      'result',
    ]);
    expect(events[0]).toEqual({ type: 'system', sessionId: '01a225c8-7573-720a-8e28-cc869b6ef508' });
    expect(events[2]).toMatchObject({
      type: 'tool_call',
      name: 'bash',
      input: { command: 'echo hi > hi.txt && cat hi.txt' },
    });
    expect(events[3]).toMatchObject({ type: 'tool_result', output: 'hi\n', isError: false });
    expect(finalText).toBe('Wrote hi.txt.\nLOOP_COMPLETE');
    const result = events.at(-1);
    expect(result).toMatchObject({ type: 'result', text: finalText, isError: false, model: 'ralph-model' });
    // Two model calls of 1200 in / 40 out at $3 / $15 per million tokens: 2 × $0.0042.
    expect(result?.type === 'result' && result.costUsd).toBeCloseTo(0.0084, 10);
    const meter = new UsageMeter();
    for (const e of events) meter.add(e);
    expect(meter.totals()).toEqual({ input: 2400, output: 80, cache_read: 0, cache_write: 0, total: 2480 });
    expect(meter.spentUsd()).toBeCloseTo(0.0084, 10);
    expect(classifyPiExit(exitInfo(events, 0))).toEqual({ kind: 'success' });
  });

  it('usage events of one run each have their own id, so none replaces another', () => {
    const ids = parse(fixtureLines('shell-then-text')).events.flatMap((e) =>
      e.type === 'usage' ? [e.messageId] : [],
    );
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('a failed command (exit 3) is an error result; the run still succeeds', () => {
    const { events } = parse(fixtureLines('tool-errors'));
    expect(events.filter((e) => e.type === 'tool_result')).toEqual([
      expect.objectContaining({ output: 'failing\n\n\nCommand exited with code 3', isError: true }),
    ]);
    expect(classifyFixture('tool-errors', 0)).toEqual({ kind: 'success' });
  });

  it('text the agent read or wrote that names limits, keys or the context is no failure', () => {
    expect(classifyFixture('reads-limit-text', 0)).toEqual({ kind: 'success' });
  });

  it('a 429 the provider SDK retried, then the answer: success, no limit', () => {
    const { events } = parse(fixtureLines('retry-429-then-ok'));
    expect(events.some((e) => e.type === 'rate_limit')).toBe(false);
    expect(classifyFixture('retry-429-then-ok', 0)).toEqual({ kind: 'success' });
  });
});

describe('how a pi run ended (recorded): pi exits 0 when the model call failed', () => {
  it('429 until pi gave up: a rate limit, its retries reported as limits it is still retrying', () => {
    const { events } = parse(fixtureLines('rate-limit-exhausted'));
    const limits = events.filter((e) => e.type === 'rate_limit');
    expect(limits).toHaveLength(3);
    expect(limits.every((e) => e.type === 'rate_limit' && e.retrying === true)).toBe(true);
    // pi gave up: the end of its output is an error result (the runner's judgement of the turn).
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      isError: true,
      text: '429 Rate limit reached for requests',
    });
    expect(classifyFixture('rate-limit-exhausted', 0)).toEqual({
      kind: 'rate_limit',
      message: '429 Rate limit reached for requests',
    });
  });

  it('429 insufficient_quota: a usage limit', () => {
    expect(classifyFixture('insufficient-quota', 0)).toMatchObject({ kind: 'rate_limit' });
  });

  it('401: an error result at the end of the output, classified as an auth error', () => {
    expect(parse(fixtureLines('auth-401')).events.at(-1)).toMatchObject({ type: 'result', isError: true });
    expect(classifyFixture('auth-401', 0)).toEqual({
      kind: 'auth_error',
      message: '401 Incorrect API key provided: test-key.',
    });
  });

  it('400 maximum context length (pi starts a compaction, then stops): a context overflow', () => {
    expect(classifyFixture('context-overflow', 0)).toMatchObject({ kind: 'context_overflow' });
  });

  it('no key for the provider (exit 1, stderr): an auth error naming the provider', () => {
    expect(classifyFixture('no-key', 1)).toEqual({
      kind: 'auth_error',
      message: 'No API key found for anthropic.',
    });
  });

  it('an unknown model (exit 1, stderr only): an agent error with pi’s message', () => {
    expect(classifyFixture('unknown-model', 1)).toEqual({
      kind: 'agent_error',
      message: 'Model "nope/none" not found. Use --list-models to see available models.',
    });
  });

  it('killed by Ralph, or by a signal', () => {
    expect(classifyPiExit(exitInfo([], null, { killedBy: 'iteration timeout' }))).toEqual({
      kind: 'killed',
      reason: 'iteration timeout',
    });
    expect(classifyPiExit(exitInfo([], null, { signal: 'SIGKILL' }))).toMatchObject({ kind: 'agent_error' });
  });

  it('property: any line, JSON or not, parses without throwing; a run exiting 0 succeeds exactly when its last result is no error', () => {
    const line = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constantFrom(...fixtureLines('shell-then-text'), ...fixtureLines('auth-401')),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const { events } = parse(lines);
        const last = events.findLast((e) => e.type === 'result');
        const succeeded = classifyPiExit(exitInfo(events, 0)).kind === 'success';
        expect(succeeded).toBe(last?.type === 'result' && !last.isError);
      }),
    );
  });
});

describe('pi credentials, as ralph doctor sees them', () => {
  it('an empty auth.json (pi writes `{}` on its first start) is no login; one with a provider is', () => {
    const home = makeWorkspace();
    const dir = join(home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    const [file] = pi.auth.files({}, home);
    expect(file?.path).toBe(join(dir, 'auth.json'));
    expect(file?.holds?.('{}')).toBe(false);
    expect(file?.holds?.('{\n  "anthropic": { "type": "api_key", "key": "k" }\n}')).toBe(true);
    expect(pi.auth.hidden?.({}, home)).toBeUndefined();
    writeFileSync(join(dir, 'models.json'), '{"providers":{}}');
    expect(pi.auth.hidden?.({}, home)).toBe(`${join(dir, 'models.json')} may carry a provider key`);
  });
});
