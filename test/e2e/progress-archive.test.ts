import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, runRalph } from '../helpers/workspace.ts';

/** `YYYY-MM-DD` of `days` days before today (UTC, the day archiving counts in). */
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const archive = (dir: string, date: string) => join(dir, 'progress', 'archive', `${date.slice(0, 7)}.md`);
const read = (file: string) => readFileSync(file, 'utf8');
const count = (text: string, part: string) => text.split(part).length - 1;

const today = daysAgo(0);
const old = daysAgo(40);
const older = daysAgo(100);
const PROGRESS = [
  '# Progress Log',
  '',
  '## Completed Tasks',
  '',
  `### ${today}`,
  '- [x] fresh task',
  '  - Commit: abc1234',
  '',
  `### ${old}`,
  '- [x] old task',
  '',
  `### ${older}`,
  '- [x] older task',
  '',
  '## Notes',
  '- undated notes stay',
  '',
].join('\n');
const CONFIG = (iterations: number) =>
  `${fakeConfig({ max_iterations: iterations })}progress:\n  archive_after_days: 30\n`;

describe('progress.archive_after_days moves old PROGRESS.md entries to progress/archive/YYYY-MM.md', () => {
  it('at run start and between iterations; the agent sees only the live part', async () => {
    const late = daysAgo(35);
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the work.\n',
      'ralph.yml': CONFIG(2),
      'PROGRESS.md': PROGRESS,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - run: cp PROGRESS.md seen-1.md',
        `      - append: { path: PROGRESS.md, content: "\\n### ${late}\\n- [x] late entry\\n" }`,
        '  - do:',
        '      - run: cp PROGRESS.md seen-2.md',
        '',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--no-tui'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2); // max_iterations reached

    const seen1 = read(join(dir, 'seen-1.md'));
    expect(seen1).toContain('fresh task');
    expect(seen1).toContain('undated notes stay');
    expect(seen1).not.toContain('old task');
    expect(seen1).toContain(`[${old.slice(0, 7)}](progress/archive/${old.slice(0, 7)}.md)`);
    expect(read(archive(dir, old))).toMatch(new RegExp(`^# Progress archive ${old.slice(0, 7)}\\n`));
    expect(read(archive(dir, old))).toContain(`### ${old}\n- [x] old task`);
    expect(read(archive(dir, older))).toContain(`### ${older}\n- [x] older task`);

    // The entry iteration 1 wrote was archived before iteration 2 started.
    const seen2 = read(join(dir, 'seen-2.md'));
    expect(seen2).not.toContain('late entry');
    expect(seen2).toContain('fresh task');
    expect(read(archive(dir, late))).toContain(`### ${late}\n- [x] late entry`);
    expect(r.stdout + r.stderr).toContain('archived');
  });

  it('finishes a move a crash interrupted without a duplicate, and a second pass changes nothing', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the work.\n',
      'ralph.yml': CONFIG(1),
      'PROGRESS.md': PROGRESS,
      'fake-agent.yml': 'turns:\n  - do:\n      - run: cp PROGRESS.md seen.md\n',
    });
    // The crash came after the archive was written and before PROGRESS.md was rewritten.
    const file = archive(dir, old);
    const entry = `### ${old}\n- [x] old task`;
    mkdirSync(join(dir, 'progress', 'archive'), { recursive: true });
    writeFileSync(file, `# Progress archive ${old.slice(0, 7)}\n\n${entry}\n`);

    const r = await runRalph(['run', '--no-tui'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2); // max_iterations reached
    expect(count(read(file), entry)).toBe(1);
    expect(read(join(dir, 'seen.md'))).not.toContain('old task');
    expect(existsSync(archive(dir, older))).toBe(true);

    const live = read(join(dir, 'PROGRESS.md'));
    const archived = read(file);
    const again = await runRalph(['run', '--no-tui', '--fresh'], dir);
    expect(again.code, again.stdout + again.stderr).toBe(2);
    expect(read(join(dir, 'PROGRESS.md'))).toBe(live);
    expect(read(file)).toBe(archived);
  });

  it("counts the move as Ralph's, not the agent's: an idle iteration after it is still idle", async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the work.\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 3, max_idle_iterations: 1 })}progress:\n  archive_after_days: 30\ngit:\n  commit: true\n`,
      'PROGRESS.md': '# Progress Log\n',
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        `    do: [{ append: { path: PROGRESS.md, content: "\\n### ${old}\\n- [x] old task\\n" } }]`,
        '  - do: [{ print: nothing to do }]',
        '',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--no-tui'], dir);
    expect(read(archive(dir, old))).toContain('old task');
    expect(r.stderr, r.stdout).toContain('no progress in 1 iteration: no file changed'); // a failed run says why on stderr
    expect(r.code).toBe(1);
    // Iteration 1 wrote the entry, iteration 2 was idle (what Ralph moved before it does not count).
    expect(r.stdout).not.toContain('iteration 3');
  });

  it('a checklist journal that is the progress file: the dry run shows the prompt iteration 1 gets, without the old entry', async () => {
    const dir = makeGitWorkspace({ 'fake-agent.yml': 'turns:\n  - do: [{ save_prompt: got-1.md }]\n' });
    expect((await runRalph(['init', '--preset', 'checklist'], dir)).code).toBe(0);
    writeFileSync(
      join(dir, 'PROGRESS.md'),
      `# Journal\n\n## ${older} old work\nlong done\n\n## ${today} fresh work\nstarted\n`,
    );
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'checklist');
    const args = [
      ...['-b', 'fake', '--set', 'cli.fake_script=fake-agent.yml', '--max-iterations', '1'],
      ...['--set', 'context.journal=PROGRESS.md', '--set', 'progress.archive_after_days=30'],
    ];
    const dry = await runRalph(['run', '--dry-run', ...args], dir);
    expect(dry.code, dry.stderr).toBe(0);
    const printed = /# first prompt \([^\n]*\)\n([\s\S]*)\n# agent command/.exec(dry.stdout)?.[1] ?? '';
    expect(printed).toContain('fresh work');
    expect(printed).not.toContain('old work');
    // The dry run touched nothing.
    expect(existsSync(join(dir, 'progress'))).toBe(false);
    await runRalph(['run', '--no-tui', ...args], dir);
    expect(read(join(dir, 'got-1.md'))).toBe(printed);
  });
});
