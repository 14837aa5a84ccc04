import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const NO_MATCH = "gates.protect: 'test/**/*.{tsx}' matches no file — nothing is protected by it";

describe('path patterns in the config are globs (picomatch)', () => {
  it('gates.protect: a brace pattern catches an edit to test/a.spec.ts (gate_tampered); a pattern that matches no file is warned about at run start', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'make it pass\n',
      'test/a.spec.ts': 'expect(1).toBe(1)\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  protect: ["test/**/*.{tsx}", "test/**/*.{ts,js}"]\n`,
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - write: { path: test/a.spec.ts, content: "// skipped\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--no-tui'], dir);
    const out = r.stdout + r.stderr;
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'gate_tampered', tampered: ['test/a.spec.ts'] });
    expect(r.code, out).toBe(2);
    expect(r.stderr).toContain(`ralph: warning: ${NO_MATCH}`);
    expect(out).not.toContain("'test/**/*.{ts,js}' matches no file");
    // At run start: the run log has it before the first iteration.
    const logs = join(dir, '.ralph', 'logs');
    const log = readFileSync(join(logs, readdirSync(logs)[0] as string), 'utf8');
    expect(log.indexOf(NO_MATCH)).toBeGreaterThan(-1);
    expect(log.indexOf(NO_MATCH)).toBeLessThan(log.indexOf('Iteration: 1'));
  });

  it('event_loop.idle_watch: a glob wakes the idle loop when a file it selects appears', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'inbox/.keep': '',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  starting_event: board.scan',
        '  persistent: true',
        '  max_iterations: 20',
        '  idle_watch: ["inbox/*.job"]',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        'hats:',
        '  scanner:',
        '    description: scans inbox/',
        '    triggers: [board.scan, task.resume]',
        '    publishes: [LOOP_COMPLETE]',
        '    instructions: scan',
        '',
      ].join('\n'),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "mkdir -p out; for f in inbox/*.job; do [ -e \\"$f\\" ] && mv \\"$f\\" out/; done; ralph emit LOOP_COMPLETE"',
      ].join('\n'),
    });
    const loop = startRalph(['run', '--no-tui'], dir);
    try {
      await waitFor(
        () => existsSync(join(dir, '.ralph', 'state.json')) && readState(dir).idle === true,
        15_000,
        'idle',
      );
      // Written again until it is taken: the watch may be set up just after the state says idle.
      const taken = () => {
        if (existsSync(join(dir, 'out', 'a.job'))) return true;
        writeFileSync(join(dir, 'inbox', 'a.job'), 'do it');
        return false;
      };
      await waitFor(taken, 15_000, 'the scan after inbox/a.job appeared');
    } catch (error) {
      // Say where it stood (a CI run once timed out here and left nothing to read).
      loop.child.kill('SIGKILL');
      const state = existsSync(join(dir, '.ralph', 'state.json')) ? JSON.stringify(readState(dir)) : '(none)';
      throw new Error(
        `${(error as Error).message}\nstate: ${state}\nstdout: ${loop.stdout().slice(-2000)}\nstderr: ${loop.stderr().slice(-2000)}`,
      );
    } finally {
      const stop = await runRalph(['stop'], dir);
      // Bounded: a loop that does not stop must fail here with where it stood, not time the test out
      // silently (a CI run once did).
      let ended = false;
      void loop.done.then(() => {
        ended = true;
      });
      const stopped = await waitFor(() => ended, 20_000).then(
        () => true,
        () => false,
      );
      if (!stopped) {
        const state = existsSync(join(dir, '.ralph', 'state.json'))
          ? JSON.stringify(readState(dir))
          : '(none)';
        loop.child.kill('SIGKILL');
        await loop.done;
        // biome-ignore lint/correctness/noUnsafeFinally: the diagnosis is the failure
        throw new Error(
          `ralph stop (exit ${stop.code}: ${stop.stdout.trim()} ${stop.stderr.trim()}) did not end the idle loop within 20 s\nstate: ${state}\nstdout: ${loop.stdout().slice(-3000)}\nstderr: ${loop.stderr().slice(-2000)}`,
        );
      }
    }
    expect(readRecords(dir).length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});

describe('a protected glob over more files than Ralph walks', () => {
  it('stops the run before any agent runs, naming the pattern, the limit and what to do (never a silent partial protection)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  protect: ["gen/**", "ci.yml"]\n`,
      'ci.yml': 'on: push\n',
      'fake-agent.yml': 'turns:\n  - do:\n      - write: { path: ran.txt, content: "ran\\n" }\n',
    });
    // Six links back to gen/ itself: a tree (a loop) with far more than 50,000 entries, made in no time.
    mkdirSync(join(dir, 'gen'));
    writeFileSync(join(dir, 'gen', 'file.txt'), 'x\n');
    for (const n of [1, 2, 3, 4, 5, 6]) symlinkSync('.', join(dir, 'gen', `loop${n}`));
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "gates.protect: 'gen/**' would have Ralph hash every file under 'gen/', more than 50,000 files and directories",
    );
    expect(r.stderr).toContain('Start the pattern in the directory that holds the files to protect');
    expect(existsSync(join(dir, 'ran.txt'))).toBe(false);
  });
});
