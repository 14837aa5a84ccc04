import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { lockTwinPath } from '../../src/state/workspace-lock.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import {
  fakeConfig,
  makeWorkspace,
  pidAlive,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startProcess,
  startRalph,
  stopWhenDone,
  waitFor,
} from '../helpers/workspace.ts';

/**
 * Issue 32, items 1 (approval), 5 and 11: a scripted agent attacks the loop's own controls — the
 * loop lock, the human's approval, the stop message's account of the work — through the built CLI.
 */

/** `.ralph/.gitignore` as `ralph init` commits it. */
const IGNORE = `${runtimeIgnoreLines().join('\n')}\n`;

/** A fake-agent action running `cmd` in the shell (quoted for YAML). */
const run = (cmd: string) => `      - run: ${JSON.stringify(cmd)}`;

describe('the loop lock holds when the agent deletes it', () => {
  it('a second `ralph run` is refused naming the live holder; the first finishes and puts the lock back', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        run('rm .ralph/loop.lock && touch deleted && while [ ! -f go ]; do sleep 0.05; done'),
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const first = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => existsSync(join(dir, 'deleted')), 15_000, 'the agent deleting the lock');
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
    const holder = readState(dir).pid as number;
    const runId = readState(dir).run_id as string;

    const second = await runRalph(['run'], dir);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stderr).toContain(`another ralph loop is running in this workspace (pid ${holder}`);
    // Refused before it touched anything: the first run's state is as it was.
    expect(readState(dir)).toMatchObject({ run_id: runId, pid: holder, status: 'running' });
    const status = await runRalph(['status'], dir);
    expect(status.stdout).toContain(`${holder}`);

    writeFileSync(join(dir, 'go'), '');
    const r = await first.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('the workspace lock was deleted or rewritten during the run');
    expect(readState(dir)).toMatchObject({ run_id: runId, status: 'completed' });
    expect(readRecords(dir)).toHaveLength(1);
    // Released as one: neither file is left, and nothing of the run is running.
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
    expect(existsSync(lockTwinPath(dir, process.env))).toBe(false);
    expect(pidAlive(holder)).toBe(false);
  });
});

describe('a loop that finds another live loop holding its workspace', () => {
  it('stops at the next boundary without committing, and leaves state.json alone', async () => {
    // Another live process, standing in for a loop that took the workspace while both files were gone.
    const other = startProcess('sleep', ['30'], makeWorkspace());
    onTestFinished(() => {
      other.child.kill('SIGKILL');
    });
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': IGNORE,
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}git:\n  commit: true\n`,
      'fake-agent.yml': ['turns:', '  - do:', '      - write: { path: work.txt, content: "mine\\n" }'].join(
        '\n',
      ),
    });
    const twin = lockTwinPath(dir, process.env);
    const forged = JSON.stringify({
      pid: other.child.pid,
      host: hostname(),
      started_at: new Date().toISOString(),
    });
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      [
        'turns:',
        '  - do:',
        '      - write: { path: work.txt, content: "mine\\n" }',
        run(`rm -f .ralph/loop.lock ${twin} && printf '%s' '${forged}' > ${twin}`),
      ].join('\n'),
    );
    git(dir, 'commit', '-qam', 'the agent script');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `another ralph loop (pid ${other.child.pid} on ${hostname()}) holds this workspace's lock now`,
    );
    // No commit for a workspace it no longer holds; the work is left in the tree.
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(dir, 'work.txt'), 'utf8')).toBe('mine\n');
    // The holder's files are its own: neither the twin nor state.json's last word is this run's end.
    expect(JSON.parse(readFileSync(twin, 'utf8')).pid).toBe(other.child.pid);
    expect(readState(dir).status).toBe('running');
  });
});

describe('no self-approval', () => {
  it('`ralph approve` from the agent, in its turn and from a process it left behind, is refused; a person settles it', async () => {
    const out = makeWorkspace();
    const bgPid = join(out, 'bg.pid');
    const bgOut = join(out, 'bg.txt');
    const turnOut = join(out, 'turn.txt');
    // Left behind: its own session, and without the iteration mark the sweep looks for — but the
    // run's other variables are still in its environment.
    const waitThenApprove = [
      `echo $$ > ${bgPid}`,
      'for i in $(seq 1 400); do grep -q approval .ralph/control/questions.jsonl 2>/dev/null && break; sleep 0.05; done',
      `ralph approve > ${bgOut} 2>&1; echo "exit=$?" >> ${bgOut}`,
    ].join('; ');
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'package.json': '{ "name": "demo" }\n',
      '.ralph/.gitignore': IGNORE,
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}rules:\n  approve: ["package.json"]\ngit:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - write: { path: package.json, content: "{ \\"name\\": \\"demo\\", \\"dependencies\\": { \\"left-pad\\": \\"1\\" } }\\n" }',
        run(`ralph approve > ${turnOut} 2>&1; echo "exit=$?" >> ${turnOut}`),
        run(`setsid env -u RALPH_ITERATION_MARK sh -c '${waitThenApprove}' < /dev/null > /dev/null 2>&1 &`),
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const loop = stopWhenDone(startRalph(['run'], dir));
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    await waitFor(
      () => existsSync(bgOut) && readFileSync(bgOut, 'utf8').includes('exit='),
      15_000,
      'the left-behind approve',
    ).catch((error) => {
      throw new Error(
        `${error}: ${loop.stdout()}${loop.stderr()} ${existsSync(bgOut) ? readFileSync(bgOut, 'utf8') : 'no output'}`,
      );
    });
    for (const file of [turnOut, bgOut]) {
      const said = readFileSync(file, 'utf8');
      expect(said).toContain('`ralph approve` is for a person');
      expect(said).toContain('exit=1');
    }
    // Still waiting for a person: nothing answered the approval.
    expect(readStatus(dir)).toBe('waiting_for_human');
    expect(readFileSync(join(dir, '.ralph', 'control', 'questions.jsonl'), 'utf8')).not.toContain(
      '"answered":true',
    );
    await waitFor(
      () => !pidAlive(Number(readFileSync(bgPid, 'utf8'))),
      5_000,
      'the left-behind process to exit',
    );

    const person = await runRalph(['reject', 'no new dependencies'], dir);
    expect(person.code, person.stderr).toBe(0);
    const r = await loop.done;
    expect(r.code, r.stdout + r.stderr).not.toBe(130);
    const [record] = readRecords(dir);
    expect(record?.approvals).toEqual([
      expect.objectContaining({ point: 'rules', answer: 'reject', by: 'cli', reason: 'no new dependencies' }),
    ]);
    expect(record?.reason).toContain('a human did not approve its change of package.json (rules.approve)');
    expect(git(dir, 'show', 'HEAD:package.json')).not.toContain('left-pad');
  });

  it('the dashboard does not start inside an agent environment', async () => {
    const dir = makeWorkspace();
    const r = await runRalph(['dashboard'], dir, { RALPH_RUN_ID: 'run-of-an-agent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('`ralph dashboard` is for a person');
  });
});

describe('a stop message tells the truth', () => {
  it('gates.on_failure: rollback with a failing validate hook: the message names the rescue ref, and git agrees', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'notes.txt': 'original\n',
      '.ralph/.gitignore': IGNORE,
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}gates:\n  validate: "echo lint failed; exit 3"\n  on_failure: rollback\ngit:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - write: { path: notes.txt, content: "changed\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const state = readState(dir);
    const ref = `refs/ralph/rescue/${state.run_id}/1`;
    expect(state.stop_reason).toBe('validation_failed');
    expect(state.stop_message).toContain(
      `this iteration was rolled back to ${start.slice(0, 7)}; its work is kept in ${ref}: \`ralph rescue show 1\``,
    );
    expect(state.stop_message).not.toContain('committed as');
    expect(r.stdout + r.stderr).toContain(ref);
    // git agrees: the branch is back at the start, the work only in the rescue ref.
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(start);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('original\n');
    expect(git(dir, 'show', `${ref}:notes.txt`)).toBe('changed\n');
    expect(readRecords(dir)[0]).toMatchObject({ rollback: { ref, to: start } });
  });
});
