import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoopIn } from '../helpers/library-loop.ts';
import {
  fakeConfig,
  makeWorkspace,
  pidAlive,
  readRecords,
  readState,
  waitFor,
} from '../helpers/workspace.ts';

// What `ralph run`'s second Ctrl-C does, through the library: runLoop's forceSignal.
describe('runLoop forceSignal (a second Ctrl-C, for an embedder)', () => {
  it('kills the agent group at once, saves the forced stop before abort() returns, and writes nothing after', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // A long grace: only the forced path ends this quickly.
      'ralph.yml': fakeConfig({ kill_grace_seconds: 60 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        // A child that ignores SIGTERM: a graceful stop would wait the whole grace for it.
        `      - run: "exec node -e \\"process.on('SIGTERM', () => {}); require('fs').writeFileSync('stubborn.ready', ''); setInterval(() => {}, 1000)\\" & echo $! > stubborn.pid"`,
        '      - hang: true',
      ].join('\n'),
    });
    const graceful = new AbortController();
    const force = new AbortController();
    const started = Date.now();
    const run = runLoopIn(dir, { signal: graceful.signal, forceSignal: force.signal });
    await waitFor(() => existsSync(join(dir, 'stubborn.ready')), 15_000, 'agent start');
    // Ctrl-C once, then again: the second comes while the graceful stop waits on the stubborn child.
    graceful.abort('interrupted');
    force.abort('forced');

    // Synchronously, as for a process that exits right after: the stop saved, the lock given back.
    const saved = readFileSync(join(dir, '.ralph', 'state.json'), 'utf8');
    expect(JSON.parse(saved)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      stop_message: 'forced stop (a second signal); resume with `ralph run --resume`',
      exit_code: 130,
    });
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);

    const result = await run;
    expect(result).toMatchObject({ stopReason: 'interrupted', exitCode: 130 });
    // Far inside the 60 s grace: nothing waited for the stubborn child.
    expect(Date.now() - started).toBeLessThan(30_000);
    for (const file of ['agent.pid', 'stubborn.pid']) {
      const pid = Number(readFileSync(join(dir, file), 'utf8'));
      await waitFor(() => !pidAlive(pid), 5_000, `${file} killed`);
    }
    // The forced stop's record stays what the run left: the iteration cut short re-runs on --resume.
    expect(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8')).toBe(saved);
    expect(readState(dir).current.number).toBe(1);
    expect(readRecords(dir)).toEqual([]);
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
  });

  it('a force without a graceful stop first stops the run the same way', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 60 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        '      - hang: true',
      ].join('\n'),
    });
    const force = new AbortController();
    const run = runLoopIn(dir, { forceSignal: force.signal });
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'agent start');
    force.abort();
    expect(await run).toMatchObject({ stopReason: 'interrupted', exitCode: 130 });
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      exit_code: 130,
      stop_message: /^forced stop/,
    });
    expect(pidAlive(Number(readFileSync(join(dir, 'agent.pid'), 'utf8')))).toBe(false);
  });
});
