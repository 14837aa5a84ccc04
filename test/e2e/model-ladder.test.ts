import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

const ladderConfig = (extra = '') =>
  `${fakeConfig({ max_iterations: 6, max_consecutive_failures: 10 })}  models: [cheap, mid, strong]\n  escalate_after: 2\n${extra}`;

/** Fails on cheap and mid (exit 3), completes on strong; every turn reports a model-priced cost. */
const STRUGGLING_AGENT = [
  'turns:',
  '  - when: { model: strong }',
  '    do:',
  '      - result: { text: LOOP_COMPLETE, cost_usd: 0.5 }',
  '  - do:',
  '      - result: { text: "could not do it", cost_usd: 0.01 }',
  '      - exit: 3',
].join('\n');

describe('model ladder (cli.models) through the built CLI', () => {
  it('starts on the first model, moves up after two failures, and records and explains why', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': ladderConfig('  descend_after: 5\n'),
      'fake-agent.yml': STRUGGLING_AGENT,
    });
    const r = await runRalph(['run', '--no-tui'], dir);
    expect(r.code).toBe(0);
    const records = readRecords(dir);
    // The model the agent was started with (--model) is the one it reports.
    expect(records.map((x) => x.model)).toEqual(['cheap', 'cheap', 'mid', 'mid', 'strong']);
    expect(records.map((x) => x.decision.route.model.rung)).toEqual([1, 1, 2, 2, 3]);
    expect(records[2]?.decision.route.model).toMatchObject({
      name: 'mid',
      rungs: 3,
      scope: 'run',
      reason: 'up from cheap after 2 failed iterations in a row (escalate_after 2)',
    });
    expect(r.stdout).toContain('spend by model: cheap $0.0200 · mid $0.0200 · strong $0.5000');
    expect(readState(dir).cost_by_model).toEqual({ cheap: 0.02, mid: 0.02, strong: 0.5 });
    const explain = await runRalph(['explain', '--iteration', '3'], dir);
    expect(explain.stdout).toContain(
      'model: mid (rung 2 of 3, run) — up from cheap after 2 failed iterations in a row (escalate_after 2)',
    );
  });

  it('keeps the rung across --resume (it is in the loop state)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2, max_consecutive_failures: 10 })}  models: [cheap, strong]\n  escalate_after: 2\n`,
      'fake-agent.yml': STRUGGLING_AGENT,
    });
    const first = await runRalph(['run', '--no-tui'], dir);
    expect(first.code).toBe(2);
    expect(readState(dir).ladder).toEqual({
      'cli@run': expect.objectContaining({ rung: 1, reason: expect.stringContaining('up from cheap') }),
    });
    const resumed = await runRalph(['run', '--no-tui', '--resume', '--max-iterations', '3'], dir);
    expect(resumed.code).toBe(0);
    expect(readRecords(dir).at(-1)).toMatchObject({ iteration: 3, model: 'strong' });
  });

  it('refuses cli.models by name on a backend whose CLI takes no model, and cli.model with cli.models', async () => {
    const custom = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\n  models: [a, b]\n',
    });
    const refused = await runRalph(['run', '--no-tui'], custom);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/ralph\.yml:\d+:\d+/);
    expect(refused.stderr).toContain('backend custom takes no model');
    expect(refused.stderr).toContain('cli.models');
    const both = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig()}  model: one\n  models: [a, b]\n`,
      'fake-agent.yml': STRUGGLING_AGENT,
    });
    const validate = await runRalph(['config', 'validate'], both);
    expect(validate.code).not.toBe(0);
    expect(validate.stderr).toContain('cli.model and cli.models are both set');
  });

  it('refuses cli.model by name on custom (its command takes the model in cli.args), before any agent runs', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\n  model: local-7b\n',
      'agent.sh': '#!/bin/sh\ntouch ran\n',
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const message =
      'cli.model: backend custom takes no model (its CLI has no model flag), so cli.model cannot be honoured; pass the model to the command in cli.args (e.g. args: ["--model", "local-7b"]), or remove cli.model';
    const validate = await runRalph(['config', 'validate'], dir);
    expect(validate.code).not.toBe(0);
    expect(validate.stderr).toMatch(/ralph\.yml:\d+:\d+/);
    expect(validate.stderr).toContain(message);
    const run = await runRalph(['run', '--no-tui'], dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(message);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    // -b custom over a file written for another backend: the file's model is dropped, not refused.
    writeFileSync(join(dir, 'ralph.yml'), 'cli:\n  backend: claude\n  model: opus\n');
    const over = await runRalph(
      ['run', '--no-tui', '-b', 'custom', '--set', 'cli.command=./agent.sh', '--max-iterations', '1'],
      dir,
    );
    expect(over.stderr).not.toContain('cli.model');
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  });
});
