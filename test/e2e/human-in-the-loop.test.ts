import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { elapse } from '../helpers/wait.ts';
import {
  fakeConfig,
  interactWorkspace,
  makeWorkspace,
  readRecords,
  readState,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
  waitForFile,
} from '../helpers/workspace.ts';

describe('ralph tell', () => {
  it('queues guidance for the next prompt once: before the run, and while an iteration runs', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - save_prompt: p1.md',
        '      - write: { path: started1, content: "" }',
        waitForFile('go'),
        '  - do:',
        '      - save_prompt: "p{{iteration}}.md"',
      ].join('\n'),
    });
    const before = await runRalph(['tell', 'read NOTES.md first'], dir);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('no loop is running; the next `ralph run` carries it');

    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'started1')), 15_000, 'iteration 1');
    const during = await runRalph(['tell', 'use', 'tabs,', 'not spaces'], dir);
    expect(during.stdout).toContain("the next iteration's prompt carries it");
    // The loop takes it while the agent still runs; the guidance sent before the run (carried by
    // this iteration's prompt) is still queued until the iteration ends, so look for this one.
    await waitFor(
      () => (readState(dir).guidance ?? []).some((g: { text: string }) => g.text === 'use tabs, not spaces'),
      10_000,
      'guidance taken',
    );
    writeFileSync(join(dir, 'go'), '');
    const r = await loop.done;
    expect(r.code).toBe(2);

    const p1 = readFileSync(join(dir, 'p1.md'), 'utf8');
    const p2 = readFileSync(join(dir, 'p2.md'), 'utf8');
    const p3 = readFileSync(join(dir, 'p3.md'), 'utf8');
    expect(p1).toContain('## From a human');
    expect(p1).toContain('read NOTES.md first');
    expect(p1).not.toContain('use tabs');
    expect(p2).toContain('use tabs, not spaces');
    expect(p2).not.toContain('read NOTES.md first');
    expect(p3).not.toContain('From a human');
    const records = readRecords(dir);
    expect(records[0]?.guidance).toHaveLength(1);
    expect(records[1]?.guidance).toHaveLength(1);
    expect(records[0]?.guidance[0]).not.toBe(records[1]?.guidance[0]);
    expect(records[2]?.guidance).toBeUndefined();
    expect(r.stdout).toContain('← guidance from cli: use tabs, not spaces');
  });

  it('refuses empty guidance with a clear message', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['tell', '  '], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the guidance is empty');
  });
});

describe('ralph ask / ralph answer', () => {
  it('blocks the agent until answered, suspends the idle timeout, and shows waiting_for_human', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // Long enough for the agent's `ralph ask` to start on a loaded machine (it is silent until then).
      'ralph.yml': `${fakeConfig({ max_iterations: 1, idle_timeout_seconds: 4 })}`,
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "ralph ask \'Which database?\' --options postgres,sqlite > answer.txt"',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    const list = await runRalph(['answer'], dir);
    expect(list.stdout).toMatch(
      /q-[0-9a-f]+ question \(iteration 1\): Which database\? \[postgres \| sqlite\]/,
    );
    const st = await runRalph(['status'], dir);
    expect(st.stdout).toContain('waiting for a human (question');
    // Silent for longer than idle_timeout_seconds: still alive, because it waits for a human.
    await elapse(4800, 'silent for longer than idle_timeout_seconds');
    const wrong = await runRalph(['answer', 'mysql'], dir);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('takes one of: "postgres", "sqlite"');
    const ok = await runRalph(['answer', 'SQLite'], dir);
    expect(ok.code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(2);
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('sqlite\n');
    const [record] = readRecords(dir);
    expect(record?.killed_by).toBeNull();
    expect(record?.questions).toHaveLength(1);
    expect(r.stderr).toContain('ralph: waiting for a human — question');
    expect(readState(dir).status).toBe('stopped');
  });

  it('prints human.default_answer on timeout; with on_timeout: stop the run then stops (exit 1)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}human:\n  timeout_seconds: 0.5\n  on_timeout: stop\n  default_answer: use sqlite\n`,
      'fake-agent.yml': 'turns:\n  - do:\n      - run: "ralph ask \'Which database?\' >> answer.txt"\n',
    });
    const r = await runRalph(['run'], dir);
    expect(readFileSync(join(dir, 'answer.txt'), 'utf8')).toBe('use sqlite\n');
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'human_timeout', iterations: 1 });
    expect(r.stdout + r.stderr).toContain('ralph run --resume');
  });

  it('`ralph answer` with nothing open says so', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['answer', 'yes'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no question is waiting');
  });
});

describe('human.interact between iterations', () => {
  it('parks the loop until answered; the next prompt carries the question and the answer', async () => {
    const dir = interactWorkspace();
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'waiting_for_human');
    expect(readState(dir).iterations).toBe(1);
    expect((await runRalph(['answer', 'no, Monday'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(2);
    const p2 = readFileSync(join(dir, 'p2.md'), 'utf8');
    expect(p2).toContain('Ship it on Friday?');
    expect(p2).toContain('no, Monday');
  });
});

describe('ralph pause / resume / stop', () => {
  it('pauses before the next iteration, resumes, and a stop ends a paused loop', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 50 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - append: { path: n.txt, content: "{{iteration}}\\n" }\n      - sleep: 0.2\n',
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'n.txt')), 15_000, 'first iteration');
    expect((await runRalph(['pause'], dir)).code).toBe(0);
    await waitFor(() => readStatus(dir) === 'paused', 10_000, 'paused');
    const count = () => readFileSync(join(dir, 'n.txt'), 'utf8').trim().split('\n').length;
    const atPause = count();
    await elapse(700, 'a paused window: no iteration may start in it');
    expect(count()).toBe(atPause);
    expect((await runRalph(['status'], dir)).stdout).toContain('paused (`ralph resume` goes on)');
    expect((await runRalph(['resume'], dir)).code).toBe(0);
    await waitFor(() => count() > atPause, 10_000, 'resumed');
    expect((await runRalph(['pause'], dir)).code).toBe(0);
    await waitFor(() => readStatus(dir) === 'paused', 10_000, 'paused again');
    expect((await runRalph(['stop'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(0);
    expect(readState(dir)).toMatchObject({ status: 'stopped', stop_reason: 'cancelled' });
    expect(r.stdout).toContain('paused — `ralph resume` goes on');
  });
});
