import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// ralph-orchestrator's split config (its docs/guide/cli-reference.md, "Hat Collection Sources"):
// `-c ralph.yml` the core, `-H hats/review.yml` the hats, and hat imports in either.

const core = [
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'event_loop:',
  '  max_iterations: 7',
  '  completion_promise: CORE_DONE',
  '  starting_event: build.start',
  'hats:',
  '  builder:',
  '    triggers: [build.start]',
  '    publishes: [build.done]',
  '',
].join('\n');

const review = [
  'name: Review flow',
  'description: One reviewer',
  'event_loop:',
  '  starting_event: review.start',
  '  completion_promise: REVIEW_DONE',
  '  max_iterations: 50',
  'events:',
  '  review.done:',
  '    description: The review is written',
  'hats:',
  '  reviewer:',
  '    import: parts/reviewer.yml',
  '    publishes: [review.done]',
  '',
].join('\n');

const reviewer = 'name: Reviewer\ntriggers: [review.start]\ninstructions: Review the diff.\n';

const workspace = () =>
  makeWorkspace({
    'ralph.yml': core,
    'hats/review.yml': review,
    'hats/parts/reviewer.yml': reviewer,
    'agent.sh': '#!/bin/sh\ncat >/dev/null\n',
    'PROMPT.md': 'Review the change.\n',
  });

describe('-H <hats source>', () => {
  it("config validate: the source's hats replace the config's, with a note; ignored keys warned", async () => {
    const dir = workspace();
    const r = await runCliInMemory(
      ['config', 'validate', '--schema-only', '-c', 'ralph.yml', '-H', 'hats/review.yml'],
      {
        cwd: dir,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ralph.yml + hats hats/review.yml: valid (backend custom, 1 hats)');
    expect(r.stdout).toContain(
      '  · ralph.yml:8:1: hats: replaced by the hats of the hats source hats/review.yml (-H)',
    );
    expect(r.stdout).toContain(
      '  ! hats/review.yml:6:3: event_loop.max_iterations: a hats source (-H) sets no event_loop.max_iterations; ignored (put it in ralph.yml or -c)',
    );
    const json = await runCliInMemory(
      ['config', 'validate', '--schema-only', '--json', '-H', 'hats/review.yml'],
      {
        cwd: dir,
      },
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, hats_source: 'hats/review.yml', hats: 1 });
    const strict = await runCliInMemory(
      ['config', 'validate', '--schema-only', '--strict', '-H', 'hats/review.yml'],
      {
        cwd: dir,
      },
    );
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('hats/review.yml:6:3: event_loop.max_iterations: a hats source (-H)');
  });

  it('config show and explain: its hats and workflow keys, the core’s limits, each from where it was set', async () => {
    const dir = workspace();
    const shown = await runCliInMemory(['config', 'show', '--hats', 'hats/review.yml'], { cwd: dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^# resolved from \S*ralph\.yml \+ hats hats\/review\.yml\n/);
    expect(shown.stdout).toContain('  reviewer:\n');
    expect(shown.stdout).not.toContain('builder');
    expect(shown.stdout).toContain('max_iterations: 7');
    expect(shown.stdout).toContain('completion_promise: REVIEW_DONE');
    const explain = await runCliInMemory(['config', 'explain', '--json', '-H', 'hats/review.yml'], {
      cwd: dir,
    });
    const rows = JSON.parse(explain.stdout) as {
      layers: { kind: string }[];
      keys: { path: string; source: string }[];
    };
    expect(rows.layers.map((l) => l.kind)).toEqual(['project', 'hats']);
    const source = (path: string) => rows.keys.find((k) => k.path === path)?.source;
    expect(source('event_loop.starting_event')).toBe('hats hats/review.yml:4');
    expect(source('event_loop.max_iterations')).toBe('project ralph.yml:5');
    expect(source('hats.reviewer.publishes')).toBe('hats hats/review.yml:13');
    expect(source('hats.reviewer.triggers')).toBe(
      'hats hats/review.yml, imported from hats/parts/reviewer.yml:2',
    );
  });

  it('hats validate and graph, and run --dry-run, run the hats of the source', async () => {
    const dir = workspace();
    const valid = await runCliInMemory(['hats', 'validate', '-H', 'hats/review.yml'], { cwd: dir });
    expect(valid.stdout).toBe('ralph.yml + hats hats/review.yml: 1 hat valid\n');
    const graph = await runCliInMemory(['hats', 'graph', '-H', 'hats/review.yml'], { cwd: dir });
    expect(graph.stdout).toContain('reviewer');
    expect(graph.stdout).not.toContain('builder');
    const dry = await runCliInMemory(['run', '--dry-run', '-H', 'hats/review.yml'], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    const prompt = dry.stdout.slice(dry.stdout.indexOf('# first prompt'));
    expect(prompt).toContain('Review the diff.');
    expect(prompt).toContain('review.start');
  });

  it('hats validate --json: one object, snake_case, valid or the errors with file:line:col', async () => {
    const dir = workspace();
    const ok = await runCliInMemory(['hats', 'validate', '-H', 'hats/review.yml', '--json'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      valid: true,
      hats_source: 'hats/review.yml',
      hats: ['reviewer'],
    });
    writeFileSync(join(dir, 'broken.yml'), 'hats:\n  a:\n    triggerz: [x]\n');
    const bad = await runCliInMemory(['hats', 'validate', '-H', 'broken.yml', '--json'], { cwd: dir });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toBe('');
    const report = JSON.parse(bad.stdout);
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ file: expect.stringContaining('broken.yml'), line: 3 });
  });

  it('run --dry-run --json: the config, the first prompt, the agent command and the sandbox as one object', async () => {
    const dir = workspace();
    const r = await runCliInMemory(['run', '--dry-run', '--json', '-H', 'hats/review.yml'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(['config_file', 'config', 'prompt', 'agent', 'sandbox']),
    );
    expect(Object.keys(report.config.hats)).toEqual(['reviewer']);
    expect(report.prompt.text).toContain('Review the diff.');
    expect(report.prompt.bytes).toBe(Buffer.byteLength(report.prompt.text));
    expect(report.agent).toMatchObject({ cwd: dir, prompt_via: expect.stringMatching(/^(argument|stdin)$/) });
    const bare = await runCliInMemory(['run', '--json'], { cwd: dir });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('--json');
  });

  it('builtin:PRESET takes a preset’s hats without its other keys or warnings', async () => {
    const dir = workspace();
    const r = await runCliInMemory(['config', 'validate', '--schema-only', '-H', 'builtin:board'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('  ! ');
    const shown = await runCliInMemory(['config', 'show', '-H', 'builtin:board'], { cwd: dir });
    expect(shown.stdout).toContain('backend: custom');
    expect(shown.stdout).not.toContain('builder:');
  });

  it('a missing file, a URL, an unknown collection and a non-hats file are errors that say what to do', async () => {
    const dir = workspace();
    const run = (source: string) => runCliInMemory(['config', 'validate', '-H', source], { cwd: dir });
    const missing = await run('hats/nope.yml');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(
      'hats file not found: hats/nope.yml — pass a YAML file of hats (-H FILE)',
    );
    expect((await run('https://example.com/hats.yml')).stderr).toContain(
      'Ralph reads no hats over the network',
    );
    expect((await run('builtin:code-assist')).stderr).toContain(
      'unknown built-in hat collection "code-assist"',
    );
    // A core config without hats passed as the hats source.
    writeFileSync(join(dir, 'core.yml'), 'cli:\n  backend: custom\n');
    const core = await run('core.yml');
    expect(core.stderr).toMatch(
      /core\.yml:1:1: cli: a hats source \(-H\) holds hats:, events: .*pass a whole config with -c/,
    );
    for (const r of [missing, core]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('-H over a core that starts at a hat (starting_hat)', () => {
  it("the source's starting_event wins, as in ralph-orchestrator; without one the old hat is not found", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, 'ralph.yml'),
      core.replace('  starting_event: build.start', '  starting_hat: builder'),
    );
    const r = await runCliInMemory(['config', 'show', '-H', 'hats/review.yml'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('starting_event: review.start');
    expect(r.stdout).not.toContain('starting_hat');
    writeFileSync(join(dir, 'bare.yml'), 'hats:\n  reviewer:\n    triggers: [review.start]\n');
    const bare = await runCliInMemory(['config', 'validate', '-H', 'bare.yml'], { cwd: dir });
    expect(bare.stderr).toContain(
      'ralph.yml:7:17: event_loop.starting_hat: starting_hat "builder" is not a hat of this config (hats: reviewer)',
    );
  });
});

describe('-H on hooks validate and doctor', () => {
  it('reads the hats source as the other commands do', async () => {
    const dir = workspace();
    const hooks = await runCliInMemory(['hooks', 'validate', '-H', 'hats/review.yml'], { cwd: dir });
    expect(hooks.code, hooks.stderr).toBe(0);
    const missing = await runCliInMemory(['hooks', 'validate', '-H', 'hats/nope.yml'], { cwd: dir });
    expect(missing.stderr).toContain('hats file not found: hats/nope.yml');
    const doctor = await runCliInMemory(['doctor', '--json', '-H', 'hats/nope.yml'], { cwd: dir });
    expect(doctor.stdout).toContain('hats file not found: hats/nope.yml');
  });
});

describe('-H from a subdirectory of the project', () => {
  it('a relative hats file is the one next to the user; builtin: is left as it is', async () => {
    const root = workspace();
    mkdirSync(join(root, '.git'));
    const sub = join(root, 'src');
    mkdirSync(sub);
    writeFileSync(join(sub, 'local.yml'), 'hats:\n  local:\n    triggers: [build.start]\n');
    const r = await runCliInMemory(['hats', 'graph', '-H', 'local.yml'], { cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`in the project at ${root}`);
    expect(r.stdout).toContain('local');
    const builtin = await runCliInMemory(['config', 'validate', '--schema-only', '-H', 'builtin:board'], {
      cwd: sub,
    });
    expect(builtin.code, builtin.stderr).toBe(0);
  });
});

describe('hat imports in ralph.yml', () => {
  it('--set cannot import a hat (an import is resolved as its file is read): an error naming the flag', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'hats:\n  b:\n    triggers: [a]\n' });
    const r = await runCliInMemory(['config', 'validate', '--schema-only', '--set', 'hats.b.import=b.yml'], {
      cwd: dir,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      '--set hats.b.import=b.yml: hats.b.import: import is read from a config file: write hats.b.import in ralph.yml (or the -H file), not with --set',
    );
  });

  it('a missing import is an error at its line; config validate names the file', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'hats:\n  builder:\n    import: hats/builder.yml\n' });
    const r = await runCliInMemory(['config', 'validate', '--schema-only'], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /ralph\.yml:3:13: hats\.builder\.import: hat "builder" imports hats\/builder\.yml: no such file/,
    );
  });
});
