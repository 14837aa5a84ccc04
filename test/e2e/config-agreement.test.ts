import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeWorkspace, readRecords, runRalph } from '../helpers/workspace.ts';

// The config-agreement test (issue 33): for one workspace and one environment, `config show`,
// `config explain`, `config validate`, `run --dry-run` and the run itself (the loop.started event
// and the iteration records, from the config cache's miss and its hit) name the same backend and
// the same effective config.

const FAKE_AGENT = 'turns:\n  - do:\n      - print: LOOP_COMPLETE\n';
/** A custom agent (a hat's `command`) that completes at once. */
const CUSTOM_AGENT = '#!/bin/sh\nralph emit LOOP_COMPLETE\n';

interface Case {
  name: string;
  files: Record<string, string>;
  /** The user config (`$XDG_CONFIG_HOME/ralph/config.yml`), when the case has one. */
  user?: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
  /** The loop's backend every report must name, and each iteration's (a hat's may differ). */
  backend: string;
  iterations: string[];
}

const CASES: Case[] = [
  {
    name: 'ralph.yml alone, RALPH_AGENT unset',
    files: { 'ralph.yml': 'cli:\n  backend: fake\n  fake_script: fake-agent.yml\n' },
    backend: 'fake',
    iterations: ['fake'],
  },
  {
    name: 'RALPH_AGENT over a ralph.yml written for another backend (its command and args dropped)',
    files: {
      'ralph.yml':
        'cli:\n  backend: custom\n  command: ./agent.sh\n  args: [--loop-arg]\n  fake_script: fake-agent.yml\n',
    },
    env: { RALPH_AGENT: 'fake' },
    backend: 'fake',
    iterations: ['fake'],
  },
  {
    name: '-c FILE over a user config layer, RALPH_AGENT naming the same backend',
    files: {
      'ralph.yml': 'cli:\n  backend: claude\n',
      'alt.yml': 'cli:\n  backend: fake\n  fake_script: fake-agent.yml\nevent_loop:\n  prompt: go\n',
    },
    user: 'event_loop:\n  max_iterations: 3\n  cooldown_delay_seconds: 0\n',
    env: { RALPH_AGENT: 'fake' },
    args: ['-c', 'alt.yml'],
    backend: 'fake',
    iterations: ['fake'],
  },
  {
    name: 'a preset naming claude, RALPH_AGENT=fake over it',
    files: { 'ralph.yml': 'cli:\n  fake_script: fake-agent.yml\n' },
    env: { RALPH_AGENT: 'fake' },
    args: ['--preset', 'solo'],
    backend: 'fake',
    iterations: ['fake'],
  },
  {
    name: '--set over RALPH_AGENT and the files',
    files: {
      'ralph.yml': 'cli:\n  backend: claude\n  model: file-model\n  fake_script: fake-agent.yml\n',
    },
    env: { RALPH_AGENT: 'codex' },
    args: ['--set', 'cli.backend=fake', '--set', 'event_loop.max_iterations=4'],
    backend: 'fake',
    iterations: ['fake'],
  },
  {
    name: 'a hat on its own backend, RALPH_AGENT picking the loop’s',
    files: {
      'ralph.yml': [
        'cli:',
        '  backend: claude',
        '  model: loop-model',
        '  fake_script: fake-agent.yml',
        'hats:',
        '  builder:',
        '    triggers: [task.start]',
        '    publishes: [LOOP_COMPLETE]',
        '    instructions: Build.',
        '    backend: custom',
        '    command: ./agent.sh',
        '',
      ].join('\n'),
      'agent.sh': CUSTOM_AGENT,
    },
    env: { RALPH_AGENT: 'fake' },
    backend: 'fake',
    iterations: ['custom'],
  },
];

/** Every leaf of a config as `path → value`, as `config explain` walks it (lists are leaves). */
function leaves(value: unknown, path: string[] = [], out: Record<string, unknown> = {}) {
  const isMap = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isMap || (Object.keys(value).length === 0 && path.length > 0)) out[path.join('.')] = value;
  else for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  return out;
}

/** The YAML of `--dry-run`'s `# resolved config` section. */
function dryRunConfig(stdout: string): Record<string, unknown> {
  const start = stdout.indexOf('\n', stdout.indexOf('# resolved config')) + 1;
  return parse(stdout.slice(start, stdout.indexOf('# first prompt')));
}

/** The stream's loop.started events of every run of the workspace, in the order they started. */
function loopStarts(dir: string): { backend: string; maxIterations: number }[] {
  const runs = join(dir, '.ralph', 'runs');
  return readdirSync(runs)
    .sort()
    .flatMap((run) =>
      readFileSync(join(runs, run, 'stream.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"loop.started"'))
        .map((l) => JSON.parse(l).event),
    );
}

describe('every command reports the config the run uses', () => {
  it.each(CASES)(
    '$name',
    async (c) => {
      const dir = makeWorkspace({ 'PROMPT.md': 'go\n', 'fake-agent.yml': FAKE_AGENT, ...c.files });
      if (c.files['agent.sh']) chmodSync(join(dir, 'agent.sh'), 0o755);
      const home = makeWorkspace(c.user === undefined ? {} : { 'ralph/config.yml': c.user });
      const cache = makeWorkspace();
      const env = { XDG_CONFIG_HOME: home, XDG_CACHE_HOME: cache, RALPH_AGENT: undefined, ...c.env };
      const args = c.args ?? [];
      const ralph = async (command: string[]) => {
        const r = await runRalph([...command, ...args], dir, env);
        expect(r.code, `ralph ${command.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
        return r.stdout;
      };

      // These four write nothing: side by side.
      const [show, explain, validate, dryRun] = await Promise.all([
        ralph(['config', 'show']),
        ralph(['config', 'explain', '--json']),
        ralph(['config', 'validate']),
        ralph(['run', '--dry-run']),
      ]);
      const shown = parse(show);
      const explained = JSON.parse(explain).keys as { path: string; value?: unknown }[];
      const validated = /: valid \(backend ([a-z]+)/.exec(validate)?.[1];
      const dry = dryRunConfig(dryRun);

      expect(shown.cli.backend).toBe(c.backend);
      expect(validated).toBe(c.backend);
      expect(dry).toEqual(shown);
      const explainedLeaves = Object.fromEntries(
        explained.filter((k) => k.value !== undefined).map((k) => [k.path, k.value]),
      );
      expect(explainedLeaves).toEqual(leaves(shown));

      // The run twice: the first resolves the files and fills the config cache, the second reads it.
      await ralph(['run', '--no-tui']);
      const cached = existsSync(join(cache, 'ralph', 'config'));
      await ralph(['run', '--no-tui', '--fresh']);
      expect(cached, 'the first run filled the config cache').toBe(true);
      const starts = loopStarts(dir);
      expect(starts.map((s) => [s.backend, s.maxIterations])).toEqual([
        [c.backend, shown.event_loop.max_iterations],
        [c.backend, shown.event_loop.max_iterations],
      ]);
      expect(readRecords(dir).map((r) => r.backend)).toEqual([...c.iterations, ...c.iterations]);
    },
    60_000,
  );
});
