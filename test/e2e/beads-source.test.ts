import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// A project tracked with beads (its .beads/issues.jsonl export as bd writes it): an epic with two
// children, the second blocked by the first, and an issue outside the epic.
const line = (o: Record<string, unknown>) =>
  JSON.stringify({
    status: 'open',
    priority: 2,
    issue_type: 'task',
    created_at: '2026-11-01T10:00:00Z',
    ...o,
  });
const EXPORT = `${[
  line({ id: 'app-7', title: 'Search', issue_type: 'epic' }),
  line({ id: 'app-7.1', title: 'Index the notes' }),
  line({
    id: 'app-7.2',
    title: 'Search box',
    dependencies: [{ issue_id: 'app-7.2', depends_on_id: 'app-7.1', type: 'blocks' }],
  }),
  line({ id: 'app-9', title: 'Dark mode' }),
].join('\n')}\n`;

// The agent takes the first ready task and closes it with `ralph tools task close`, as a prompt
// would ask; it never says it is done.
const AGENT = `#!/bin/sh
id=$(ralph tools task ready --json | node -e 'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{const t=JSON.parse(s);process.stdout.write(t[0]?t[0].id:"")})')
[ -n "$id" ] || exit 0
echo "$id" >> worked.txt
ralph tools task close "$id"
`;

describe('tasks.source: beads, through the built CLI', () => {
  it("works the epic's issues in dependency order and completes when all are closed", async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'cli:',
        '  backend: custom',
        '  command: ./agent.sh',
        'event_loop:',
        '  max_iterations: 5',
        'tasks:',
        '  source: beads',
        '  beads:',
        '    epic: app-7',
        'completion:',
        '  condition: all_tasks',
        '',
      ].join('\n'),
      'PROMPT.md': 'Take the first ready task, do it, close it.\n',
      '.beads/issues.jsonl': EXPORT,
      'agent.sh': AGENT,
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const r = await runRalph(['run', '-q'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'worked.txt'), 'utf8')).toBe('app-7.1\napp-7.2\n');
    const records = readRecords(dir);
    expect(records.map((x) => x.verdict)).toEqual(['success', 'complete']);
    expect(records.map((x) => x.progress.tasks)).toEqual([true, true]);
    expect(readState(dir).stop_reason).toBe('completed');
    const statuses = readFileSync(join(dir, '.beads/issues.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => [JSON.parse(l).id, JSON.parse(l).status]);
    expect(statuses).toEqual([
      ['app-7', 'open'],
      ['app-7.1', 'closed'],
      ['app-7.2', 'closed'],
      ['app-9', 'open'],
    ]);
  });
});
