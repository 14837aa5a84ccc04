import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace, subjects } from '../helpers/git-workspace.ts';
import { webhookReceiver as receiver } from '../helpers/webhook-receiver.ts';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

describe('notifications', () => {
  it('posts to the webhook (retrying a 500) and runs notify.command with the JSON on stdin', async () => {
    const hook = await receiver(1);
    try {
      const dir = makeWorkspace({
        'PROMPT.md': 'work\n',
        'ralph.yml': `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: ${hook.url}\n  command: 'cat >> notes.jsonl; echo "$RALPH_NOTIFY_KIND $RALPH_NOTIFY_RUN_ID" >> kinds.txt'\n  on: [stopped, question]\n`,
        'fake-agent.yml': 'turns:\n  - do:\n      - run: "ralph ask \'Go on?\' > answer.txt"\n',
      });
      const loop = startRalph(['run'], dir);
      await waitFor(() => existsSync(join(dir, 'kinds.txt')), 15_000, 'question notification');
      expect((await runRalph(['answer', 'yes'], dir)).code).toBe(0);
      const r = await loop.done;
      expect(r.code).toBe(2);
      const notes = readFileSync(join(dir, 'notes.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(notes.map((n) => n.kind)).toEqual(['question', 'stopped']);
      expect(notes[0]).toMatchObject({ message: 'Go on?', workspace: dir });
      expect(notes[1]).toMatchObject({ detail: { stop_reason: 'max_iterations', exit_code: 2 } });
      const runId = notes[1].run_id;
      expect(readFileSync(join(dir, 'kinds.txt'), 'utf8')).toBe(`question ${runId}\nstopped ${runId}\n`);
      // The first POST got a 500 and was retried (meanwhile `stopped` may have gone out); both arrived.
      const got = hook.got.map((g) => `${g.body.kind} ${g.status}`);
      expect(got[0]).toBe('question 500');
      expect([...got].sort()).toEqual(['question 204', 'question 500', 'stopped 204']);
    } finally {
      await hook.close();
    }
  });

  it('notify.webhook_format: slack posts {text}, discord posts {content} that pings nobody, each a short summary', async () => {
    for (const [format, field, bold, keys] of [
      ['slack', 'text', '*ralph · stopped*', ['text']],
      ['discord', 'content', '**ralph · stopped**', ['content', 'allowed_mentions', 'flags']],
    ] as const) {
      const hook = await receiver();
      try {
        const dir = makeWorkspace({
          'PROMPT.md': 'work\n',
          'ralph.yml': `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: ${hook.url}\n  webhook_format: ${format}\n  on: [stopped]\n`,
          'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
        });
        expect((await runRalph(['run'], dir)).code).toBe(2);
        expect(hook.got).toHaveLength(1);
        const body = hook.got[0]?.body as Record<string, string>;
        expect(Object.keys(body)).toEqual(keys);
        expect(body[field]).toContain(bold);
        expect(body[field]).toContain('max_iterations');
        expect(body[field]).toContain(dir);
      } finally {
        await hook.close();
      }
    }
  });

  it('a webhook that never answers does not hold up the loop, and the failure is a warning', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // Port 9 on loopback: nothing listens, the connection is refused at once.
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}notify:\n  webhook: http://127.0.0.1:9/hook\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('notify.webhook failed for a stopped notification');
  });
});

// Notification and review-point config errors run in process: test/cli/notify-config.test.ts.
describe('review points with a human', () => {
  it('before_commit: a rejection keeps the changes uncommitted and its reason reaches the next prompt; approve commits', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2 })}git:\n  commit: true\ngates:\n  approval: [before_commit]\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: a.txt, content: "spaces\\n" }',
        '  - do:',
        '      - save_prompt: .ralph/p2.md',
        '      - write: { path: a.txt, content: "tabs\\n" }',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 1');
    const rejected = await runRalph(['reject', 'use', 'tabs'], dir);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toMatch(/rejected a-[0-9a-f]+ \(before_commit\): use tabs/);
    await waitFor(() => existsSync(join(dir, '.ralph', 'p2.md')), 15_000, 'iteration 2');
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 2');
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(2);
    expect(readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8')).toContain(
      'A human rejected the commit of iteration 1: use tabs',
    );
    expect(subjects(dir)).toHaveLength(2);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('tabs\n');
    const records = readRecords(dir);
    expect(records[0]).toMatchObject({
      commit: null,
      approvals: [{ point: 'before_commit', answer: 'reject' }],
    });
    expect(records[1]?.approvals).toMatchObject([{ point: 'before_commit', answer: 'approve', by: 'cli' }]);
    expect(records[1]?.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('before_complete: completion waits for approval; a rejection sends the loop on', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  approval: before_complete\n`,
      'fake-agent.yml':
        'turns:\n  - do:\n      - save_prompt: "p{{iteration}}.md"\n      - print: LOOP_COMPLETE\n',
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 1');
    expect((await runRalph(['reject', 'the README is missing'], dir)).code).toBe(0);
    await waitFor(() => existsSync(join(dir, 'p2.md')), 15_000, 'iteration 2');
    await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'approval 2');
    expect((await runRalph(['approve'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8'))).toMatchObject({
      stop_reason: 'completed',
      iterations: 2,
    });
    expect(readFileSync(join(dir, 'p2.md'), 'utf8')).toContain('the README is missing');
  });

  it('no answer in time with on_timeout: continue goes on as approved', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3 })}gates:\n  approval: before_complete\nhuman:\n  timeout_seconds: 0.3\n  on_timeout: continue\n`,
      'fake-agent.yml': 'turns:\n  - do:\n      - print: LOOP_COMPLETE\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(readRecords(dir)[0]?.approvals).toMatchObject([{ point: 'before_complete', by: 'timeout' }]);
  });
});
