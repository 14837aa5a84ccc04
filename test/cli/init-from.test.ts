import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Each peer's project written in its own documented layout (our own text, their file names and fields).
const PRD = JSON.stringify({
  project: 'Todo',
  branchName: 'ralph/todo',
  description: 'A todo list',
  userStories: [
    {
      id: 'US-001',
      title: 'Add a todo',
      description: 'As a user…',
      acceptanceCriteria: ['Typecheck passes'],
      priority: 1,
      passes: false,
      notes: '',
    },
  ],
});

const init = (dir: string, ...args: string[]) => runCliInMemory(['init', ...args], { cwd: dir });
const written = (dir: string) => parse(readFileSync(join(dir, 'ralph.yml'), 'utf8'));

describe('ralph init --from', () => {
  it('snarktank: prompt.md, prd.json as the task source, COMPLETE as the promise; progress.txt noted', async () => {
    const dir = makeWorkspace({
      'prompt.md': '# Agent instructions\nPick the highest priority story where passes is false.\n',
      'prd.json': PRD,
      'progress.txt': '# Progress Log\n',
    });
    const r = await init(dir, '--from', 'snarktank');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(written(dir)).toEqual({
      event_loop: { prompt_file: 'prompt.md', completion_promise: 'COMPLETE' },
      tasks: { source: 'prd.json' },
    });
    expect(r.stdout).toMatch(/^maps: +prompt\.md → event_loop\.prompt_file: "prompt\.md"$/m);
    expect(r.stdout).toMatch(/^maps: +prd\.json → tasks\.source: prd\.json/m);
    expect(r.stdout).toMatch(/^does not map: progress\.txt — kept as it is/m);
    expect(r.stdout).toContain('wrote ralph.yml');
    expect((await runCliInMemory(['config', 'validate'], { cwd: dir })).code).toBe(0);
    expect((await runCliInMemory(['tools', 'task', 'list'], { cwd: dir })).stdout).toMatch(/US-001\s+open/);
  });

  it('snarktank in scripts/ralph/: the paths point there', async () => {
    const dir = makeWorkspace({
      'scripts/ralph/prompt.md': 'Work.\n',
      'scripts/ralph/prd.json': PRD,
      'scripts/ralph/ralph.sh': '#!/bin/bash\n',
    });
    expect((await init(dir, '--from', 'snarktank')).code).toBe(0);
    expect(written(dir)).toMatchObject({
      event_loop: { prompt_file: 'scripts/ralph/prompt.md' },
      tasks: { source: 'prd.json', prd: 'scripts/ralph/prd.json' },
    });
  });

  it('never overwrites a ralph.yml without --force, and writes nothing when refusing', async () => {
    const dir = makeWorkspace({ 'prompt.md': 'x\n', 'prd.json': PRD, 'ralph.yml': 'mine: true\n' });
    const r = await init(dir, '--from', 'snarktank');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ralph.yml already exists');
    expect(r.stderr).toContain('--force');
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe('mine: true\n');
    expect((await init(dir, '--from', 'snarktank', '--force')).code).toBe(0);
    expect(written(dir).tasks.source).toBe('prd.json');
  });

  it('frankbria: .ralph/PROMPT.md, fix_plan.md as the checklist, the .ralphrc keys with a Ralph equivalent', async () => {
    const dir = makeWorkspace({
      '.ralph/PROMPT.md': '## Context\nBuild a CLI.\n',
      '.ralph/fix_plan.md': '# Fix Plan\n\n## Priority 1\n- [ ] Parse the flags\n- [x] Set up the package\n',
      '.ralph/AGENT.md': '## Build\nnpm test\n',
      '.ralphrc': [
        'PROJECT_NAME="${PROJECT_NAME:-todo}"',
        'CLAUDE_TIMEOUT_MINUTES=20',
        'ALLOWED_TOOLS="Write,Read,Bash(npm *)"',
        'SESSION_CONTINUITY=true',
        'TASK_SOURCES="local,github"',
        'GITHUB_TASK_LABEL="ralph-task"',
        '',
      ].join('\n'),
    });
    const r = await init(dir, '--from', 'frankbria');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(written(dir)).toEqual({
      event_loop: { prompt_file: '.ralph/PROMPT.md', iteration_timeout_seconds: 1200 },
      completion: { checklist: '.ralph/fix_plan.md' },
      cli: { backend: 'claude' },
      tasks: { source: 'github', github: { label: 'ralph-task' } },
    });
    expect(r.stdout).toMatch(/^does not map: \.ralphrc ALLOWED_TOOLS — .*sandbox: on/m);
    expect(r.stdout).toMatch(/^does not map: \.ralphrc SESSION_CONTINUITY — /m);
    expect(r.stdout).toMatch(/^does not map: \.ralph\/AGENT\.md — /m);
    expect(r.stdout).toMatch(/^does not map: \.ralph\/ — .*state directory/m);
  });

  it('ralph-tui: the json tracker is the prd.json source, agent and limits mapped, the template not', async () => {
    const dir = makeWorkspace({
      '.ralph-tui/config.toml': [
        '# ralph-tui project config',
        'tracker = "json"',
        'agent = "claude"',
        'maxIterations = 25',
        'iterationDelay = 2000',
        'prompt_template = "./prompt.hbs"',
        '',
        '[trackerOptions]',
        'path = "tasks/prd.json"',
        '',
        '[[agents]]',
        'name = "other"',
        'plugin = "codex"',
        '',
      ].join('\n'),
      'tasks/prd.json': PRD,
    });
    const r = await init(dir, '--from', 'ralph-tui');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(written(dir)).toEqual({
      tasks: { source: 'prd.json', prd: 'tasks/prd.json' },
      event_loop: { completion_promise: 'COMPLETE', max_iterations: 25, cooldown_delay_seconds: 2 },
      cli: { backend: 'claude' },
    });
    expect(r.stdout).toMatch(/^does not map: \.ralph-tui\/config\.toml prompt_template — /m);
  });

  it('ralph-tui with beads maps to tasks.source: beads, its --epic flag said', async () => {
    const issue = '{"id":"p-1","title":"Add login","status":"open","priority":1,"issue_type":"task"}\n';
    const dir = makeWorkspace({
      '.ralph-tui/config.toml': 'tracker = "beads"\n',
      'PROMPT.md': 'Work.\n',
      '.beads/issues.jsonl': issue,
    });
    const r = await init(dir, '--from', 'ralph-tui');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^maps: .*tracker = "beads" → tasks\.source: beads/m);
    expect(r.stdout).toMatch(/^does not map: ralph-tui run --epic ID — .*tasks\.beads\.epic/m);
    expect(written(dir).tasks).toEqual({ source: 'beads' });
    const list = await runCliInMemory(['tools', 'task', 'list'], { cwd: dir });
    expect(list.stdout).toMatch(/p-1\s+open\s+2\s+Add login/);
  });

  it('ralph-orchestrator: its ralph.yml is validated as it is, warnings printed, nothing written', async () => {
    const config =
      'cli:\n  backend: claude\nevent_loop:\n  prompt_file: PROMPT.md\n  checkpoint_interval: 5\n';
    const dir = makeWorkspace({ 'ralph.yml': config, 'PROMPT.md': 'Work.\n' });
    const r = await init(dir, '--from', 'ralph-orchestrator');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^maps: +ralph\.yml → read as it is/m);
    expect(r.stdout).toMatch(/^warning: .*checkpoint_interval/m);
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(config);
  });

  it('ralph-orchestrator: a ralph.yml Ralph cannot read is refused with the key named', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  prompt_file: PROMPT.md\n  max_iteratons: 3\n' });
    const r = await init(dir, '--from', 'ralph-orchestrator');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('max_iteratons');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a directory without the project, or an unknown kind: one line saying what was expected', async () => {
    const dir = makeWorkspace({});
    const none = await init(dir, '--from', 'snarktank');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no snarktank project in .*: expected prd\.json or prompt\.md/);
    const unknown = await init(dir, '--from', 'ralph-wiggum');
    expect(unknown.stderr).toMatch(
      /unknown project kind "ralph-wiggum".*snarktank, ralph-tui, frankbria, ralph-orchestrator/,
    );
    expect(existsSync(join(dir, 'ralph.yml'))).toBe(false);
  });

  it('plain ralph init in a snarktank project says how to map it', async () => {
    const dir = makeWorkspace({ 'prompt.md': 'x\n', 'prd.json': PRD });
    const r = await init(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('this looks like a snarktank project: `ralph init --from snarktank --force`');
  });
});
