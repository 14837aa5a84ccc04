import { describe, expect, it } from 'vitest';
import { supervise } from '../../src/process/supervisor.ts';
import { makeWorkspace, pidAlive } from '../helpers/workspace.ts';

const node = process.execPath;

describe('supervise (real processes)', () => {
  it('feeds the prompt on stdin and streams lines from stdout and stderr', async () => {
    const lines: string[] = [];
    const r = await supervise({
      command: 'sh',
      args: ['-c', 'read line; echo "got: $line"; echo oops >&2; exit 4'],
      cwd: makeWorkspace(),
      env: process.env,
      stdin: 'the prompt\n',
      killGraceMs: 500,
      onLine: (stream, line) => lines.push(`${stream}:${line}`),
    });
    expect(r.exitCode).toBe(4);
    expect(r.killedBy).toBeNull();
    expect(lines).toEqual(expect.arrayContaining(['stdout:got: the prompt', 'stderr:oops']));
  });

  it('keeps at most tailChars of output in memory while every chunk is still delivered', async () => {
    let delivered = 0;
    const r = await supervise({
      command: node,
      args: ['-e', "for (let i = 0; i < 5000; i++) process.stdout.write('x'.repeat(99) + '\\n')"],
      cwd: makeWorkspace(),
      env: process.env,
      stdin: null,
      killGraceMs: 500,
      tailChars: 1000,
      onChunk: (_s, text) => {
        delivered += text.length;
      },
    });
    expect(r.exitCode).toBe(0);
    expect(delivered).toBe(500_000);
    expect(r.stdoutTail.length).toBe(1000);
    expect(r.stdoutTail.endsWith('x\n')).toBe(true);
  });

  it('kills the whole group at the deadline, including a grandchild that ignores SIGTERM', async () => {
    const pids: number[] = [];
    const script = [
      "const { spawn } = require('node:child_process');",
      "const g = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\"], { stdio: ['ignore', 'inherit', 'inherit'] });",
      "console.log('grandchild ' + g.pid);",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const r = await supervise({
      command: node,
      args: ['-e', script],
      cwd: makeWorkspace(),
      env: process.env,
      stdin: null,
      timeoutMs: 500,
      timeoutReason: 'iteration_timeout',
      killGraceMs: 300,
      onLine: (_s, line) => {
        const m = /^grandchild (\d+)/.exec(line);
        if (m) pids.push(Number(m[1]));
      },
    });
    expect(r.killedBy).toBe('iteration_timeout');
    expect(r.signal).toBe('SIGTERM');
    expect(pids).toHaveLength(1);
    expect(pidAlive(pids[0]!)).toBe(false);
    expect(pidAlive(r.pid!)).toBe(false);
  });

  it('reports an abort reason as killedBy', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort('stop_requested'), 200);
    const r = await supervise({
      command: 'sleep',
      args: ['30'],
      cwd: makeWorkspace(),
      env: process.env,
      stdin: null,
      killGraceMs: 500,
      signal: controller.signal,
    });
    expect(r.killedBy).toBe('stop_requested');
  });

  it('reports a command that does not exist as a spawn error', async () => {
    const r = await supervise({
      command: 'no-such-agent-binary-xyz',
      args: [],
      cwd: makeWorkspace(),
      env: process.env,
      stdin: 'p',
      killGraceMs: 100,
    });
    expect(r.spawnError).toBeDefined();
    expect((r.spawnError as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('kill tree', () => {
  it('also kills descendants that moved to a session of their own (setsid / detached tools)', async () => {
    const dir = makeWorkspace();
    const script = [
      "const { spawn } = require('node:child_process');",
      "const t = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });",
      "console.log('tool ' + t.pid);",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const pids: number[] = [];
    const r = await supervise({
      command: node,
      args: ['-e', script],
      cwd: dir,
      env: process.env,
      stdin: null,
      timeoutMs: 500,
      timeoutReason: 'iteration_timeout',
      killGraceMs: 300,
      onLine: (_s, line) => {
        const m = /^tool (\d+)/.exec(line);
        if (m) pids.push(Number(m[1]));
      },
    });
    expect(r.killedBy).toBe('iteration_timeout');
    expect(pids).toHaveLength(1);
    expect(pidAlive(pids[0]!)).toBe(false);
  });
});
