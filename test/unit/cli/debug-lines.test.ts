import { afterEach, describe, expect, it } from 'vitest';
import { debugRequest } from '../../../src/cli/cli-program.ts';
import { debugLine, startDebugTrace } from '../../../src/cli/debug-lines.ts';
import {
  type DebugEvent,
  setDebugSink,
  trace,
  traceableUrl,
  tracing,
} from '../../../src/process/debug-trace.ts';

// Issue 36: `--debug` / RALPH_DEBUG=1 print Ralph's own steps on stderr, never a secret.

const same = (text: string) => text;
afterEach(() => {
  setDebugSink(undefined);
});

describe('the debug request', () => {
  it('takes --debug anywhere before `--`, and RALPH_DEBUG unless empty, 0 or false', () => {
    expect(debugRequest(['--debug', 'status'], {})).toEqual({ args: ['status'], on: true });
    expect(debugRequest(['run', '--debug', '-q'], {})).toEqual({ args: ['run', '-q'], on: true });
    // After `--` it is the agent's argument, left where it is.
    expect(debugRequest(['run', '--', '--debug'], {})).toEqual({ args: ['run', '--', '--debug'], on: false });
    expect(debugRequest(['status'], { RALPH_DEBUG: '1' }).on).toBe(true);
    for (const off of ['', '0', 'false', 'FALSE'])
      expect(debugRequest(['status'], { RALPH_DEBUG: off }).on).toBe(false);
    expect(debugRequest(['status'], {}).on).toBe(false);
  });
});

describe('debug lines', () => {
  it('says what ran, where, how it ended and how long it took', () => {
    const exit: DebugEvent = {
      kind: 'process.ended',
      command: 'git',
      args: ['-C', '/w', 'status', 'two words'],
      cwd: undefined,
      exitCode: 0,
      signal: null,
      killedBy: null,
      spawnError: undefined,
      durationMs: 12,
    };
    expect(debugLine(exit, same)).toBe("exec: git -C /w status 'two words' → exit 0 in 12 ms");
    expect(debugLine({ ...exit, killedBy: 'timeout', exitCode: null, cwd: '/w' }, same)).toBe(
      "exec: git -C /w status 'two words' (cwd /w) → killed (timeout) in 12 ms",
    );
    expect(debugLine({ ...exit, spawnError: 'spawn nope ENOENT' }, same)).toContain('did not start');
    expect(
      debugLine(
        { kind: 'http', method: 'GET', url: 'https://api.github.com/repos/o/r', status: 403, durationMs: 5 },
        same,
      ),
    ).toBe('http: GET https://api.github.com/repos/o/r → 403 in 5 ms');
    expect(debugLine({ kind: 'cache', name: 'config', hit: false, of: '/w/ralph.yml' }, same)).toBe(
      'cache: config miss for /w/ralph.yml',
    );
    expect(debugLine({ kind: 'lock', path: '/w/.ralph/loop.lock', outcome: 'held' }, same)).toContain('held');
  });

  it('cuts a long argument after redacting it: a secret longer than the cut never shows by halves', () => {
    const secret = `s3cr3t-${'x'.repeat(300)}`;
    const lines: string[] = [];
    const stop = startDebugTrace({ err: (t) => lines.push(t), env: { MY_API_KEY: secret } });
    trace({
      kind: 'agent.spawn',
      backend: 'custom',
      command: '/bin/agent',
      args: ['--key', secret, 'p'.repeat(500)],
      cwd: '/w',
      sandboxed: false,
    });
    stop();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ralph\[debug\] agent: backend custom in \/w: \/bin\/agent --key '\[redacted\]' 'p{160}…'\n$/,
    );
    expect(lines[0]).not.toContain('s3cr3t');
  });

  it('shows a URL without its user info, query or fragment', () => {
    expect(traceableUrl('https://me:pw@ghe.example/api/v3/repos?token=t#x')).toBe(
      'https://ghe.example/api/v3/repos',
    );
    expect(traceableUrl('not a url')).toBe('(unparsable URL)');
  });

  it('is off unless a sink listens, and a sink that throws fails nothing', () => {
    expect(tracing()).toBe(false);
    setDebugSink(() => {
      throw new Error('broken sink');
    });
    expect(tracing()).toBe(true);
    expect(() => trace({ kind: 'state.write', path: '/w/.ralph/state.json' })).not.toThrow();
  });
});
