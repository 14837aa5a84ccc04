import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { PRESETS, presetFile } from '../../src/config/presets.ts';
import { git } from '../helpers/git-workspace.ts';
import { makeWorkspace, RALPH, readRecords, runRalph } from '../helpers/workspace.ts';

/**
 * Guard: Ralph may change only what it owns. With an agent that writes nothing, every file of the
 * repository outside `.ralph/` is as committed after a run, except the outputs Ralph documents as
 * its own, listed here per preset with the reason.
 */
const DOCUMENTED_OUTPUTS: Record<string, Record<string, string>> = {
  solo: {},
  board: {},
  spec: {},
  checklist: {
    'JOURNAL.md': 'context.iteration_markers: Ralph appends `## --- Iteration N Start` before each iteration',
  },
  tdd: {
    'loop/state.md': "tdd: Ralph appends each iteration to the state file's # History",
    'loop/ci.md': 'gates.tests.report_file: Ralph writes the test report there',
  },
};

/** A TDD state file with its sections filled in (the preset's own is a template Ralph refuses). */
const TDD_STATE = '# Goal\nA file.\n\n# Current task\nWrite it.\n\n# Constraints\n- none\n\n# History\n';

/** The user's notes in files a scratchpad setting may point at (all tracked by git). */
const NOTES: Record<string, string> = {
  'notes/loop.md': '# My notes for the loop\n- keep this\n',
  'notes/hat-a.md': '# Notes for one hat\n- keep this too\n',
  'notes/hat-b.md': '# Notes for another hat\n',
};

type Setting = { name: string; apply: (doc: ReturnType<typeof parseDocument>, hats: string[]) => void };

const SETTINGS: Setting[] = [
  { name: 'default scratchpad', apply: () => {} },
  {
    name: 'core.scratchpad under .ralph/',
    apply: (doc) => doc.setIn(['core', 'scratchpad'], '.ralph/agent/loop-notes.md'),
  },
  {
    name: 'core.scratchpad outside .ralph/',
    apply: (doc) => doc.setIn(['core', 'scratchpad'], 'notes/loop.md'),
  },
  {
    name: 'core.scratchpad {path} outside .ralph/',
    apply: (doc) => doc.setIn(['core', 'scratchpad'], doc.createNode({ path: 'notes/loop.md' })),
  },
];

/** Per-hat settings, for the presets that have hats: one hat's under .ralph/, the others' outside, and core's too. */
const HAT_SETTING: Setting = {
  name: 'per-hat and core.scratchpad',
  apply: (doc, hats) => {
    doc.setIn(['core', 'scratchpad'], 'notes/loop.md');
    hats.forEach((hat, i) => {
      const path = i === 0 ? `.ralph/agent/${hat}.md` : i === 1 ? 'notes/hat-a.md' : 'notes/hat-b.md';
      doc.setIn(['hats', hat, 'scratchpad'], path);
    });
  },
};

const CASES = PRESETS.flatMap((p) => {
  const yml = readFileSync(presetFile(p.name, 'ralph.yml'), 'utf8');
  const hasHats = /^hats:/m.test(yml);
  return [...SETTINGS, ...(hasHats ? [HAT_SETTING] : [])].map((s) => [p.name, s.name, s] as const);
});

/** Paths outside .ralph/ that differ from the initial commit: changed, deleted, committed or new. */
function changedOutsideRalph(dir: string, initial: string): string[] {
  const diff = git(dir, 'diff', '--name-only', initial, '--', '.', ':(exclude).ralph');
  const untracked = git(dir, 'ls-files', '--others', '--exclude-standard', '--', '.', ':(exclude).ralph');
  return [...new Set(`${diff}\n${untracked}`.split('\n').filter((l) => l.trim() !== ''))].sort();
}

/** The user's notes in a new repository, and `ralph init --preset NAME` over them: made once per preset, copied per case. */
const initialised = new Map<string, string>();
function initialisedCopy(preset: string): string {
  let template = initialised.get(preset);
  if (template === undefined) {
    template = makeWorkspace(NOTES);
    git(template, 'init', '-q', '-b', 'main');
    git(template, 'config', 'user.name', 'Ralph Test');
    git(template, 'config', 'user.email', 'ralph@example.invalid');
    git(template, 'config', 'commit.gpgsign', 'false');
    execFileSync(process.execPath, [RALPH, 'init', '--preset', preset, '--backend', 'fake'], {
      cwd: template,
    });
    initialised.set(preset, template);
  }
  const dir = makeWorkspace();
  cpSync(template, dir, { recursive: true });
  return dir;
}

describe('a run changes no file of the user outside .ralph/ (agent writes nothing)', () => {
  // The templates outlive any one case (a workspace made outside a test goes with the file).
  beforeAll(() => {
    for (const preset of new Set(CASES.map(([name]) => name))) initialisedCopy(preset);
  }, 120_000);

  it.each(CASES)('preset %s, %s', async (preset, _name, setting) => {
    const dir = initialisedCopy(preset);
    if (preset === 'tdd') writeFileSync(join(dir, 'loop', 'state.md'), TDD_STATE);
    const doc = parseDocument(readFileSync(join(dir, 'ralph.yml'), 'utf8'));
    const hats = Object.keys((doc.toJS() as { hats?: Record<string, unknown> }).hats ?? {});
    setting.apply(doc, hats);
    // An agent that does nothing to the files: every change is Ralph's. A shell command, not the
    // scripted agent: a node start per iteration was most of each case's time.
    doc.setIn(['cli', 'backend'], 'custom');
    doc.setIn(['cli', 'command'], 'sh');
    doc.setIn(['cli', 'args'], doc.createNode(['-c', 'cat > /dev/null; echo nothing to do']));
    writeFileSync(join(dir, 'ralph.yml'), String(doc));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'everything tracked');
    const initial = git(dir, 'rev-parse', 'HEAD').trim();
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const args = ['run', '--max-iterations', '2'];
    if (preset === 'tdd') args.push('--set', 'gates.tests.command=sh -c true');
    // The board idles until work/ or proposed/ change; the check needs iterations, not the wait.
    if (preset === 'board') args.push('--set', 'event_loop.idle_watch=[]');
    const r = await runRalph(args, dir);
    // The agent ran, so the run did what a run does (otherwise the check below is vacuous).
    expect(readRecords(dir).length, r.stdout + r.stderr).toBeGreaterThan(0);

    const expected = Object.keys(DOCUMENTED_OUTPUTS[preset] ?? {}).sort();
    expect(changedOutsideRalph(dir, initial), r.stdout + r.stderr).toEqual(expected);
    for (const [file, content] of Object.entries(NOTES))
      expect(readFileSync(join(dir, file), 'utf8'), file).toBe(content);
  });
});

describe('a scratchpad outside .ralph/ is the user’s file', () => {
  it("is never cleared, and its notes reach the hat's prompt in every new run and in the dry run", async () => {
    const notes = '# Builder notes\n- the API lives in src/api\n';
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it.\n',
      'notes/builder.md': notes,
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        'hats:',
        '  builder:',
        '    triggers: [task.start]',
        '    instructions: Build.',
        '    scratchpad: notes/builder.md',
      ].join('\n'),
      // Completes only when the prompt carries the user's notes; fails otherwise.
      'fake-agent.yml': [
        'turns:',
        '  - when: { prompt: "## Scratchpad \\\\(notes/builder\\\\.md\\\\)\\n# Builder notes\\n- the API lives in src/api" }',
        '    do: [{ save_prompt: seen-prompt.md }, { run: "ralph emit LOOP_COMPLETE" }]',
        '  - do: [{ exit: 3 }]',
      ].join('\n'),
    });
    const dry = await runRalph(['run', '--dry-run'], dir);
    expect(dry.stdout).toContain(`## Scratchpad (notes/builder.md)\n${notes.trimEnd()}`);
    for (const mode of ['--fresh', '--fresh']) {
      const r = await runRalph(['run', mode, '--max-iterations', '2'], dir);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(join(dir, 'notes/builder.md'), 'utf8')).toBe(notes);
    }
    // The dry run showed exactly the prompt the first iteration got.
    const shown = /^# first prompt [^\n]*\n([\s\S]*)\n# agent command /m.exec(dry.stdout)?.[1];
    expect(shown).toBe(readFileSync(join(dir, 'seen-prompt.md'), 'utf8'));
  });
});
