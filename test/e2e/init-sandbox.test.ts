import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { gitOnlyBin } from '../helpers/doctor-workspace.ts';
import { makeWorkspace, runRalph } from '../helpers/workspace.ts';

// `ralph init` with the built CLI: the default stays `off`, and a new ralph.yml gets `sandbox: on`
// where bubblewrap works, or a line saying what to install where it does not.

describe('ralph init and the sandbox', () => {
  it('where bwrap works: the preset’s commented line is turned on, and the run is sandboxed', async (t) => {
    if (!(await probeSandbox()).ok) t.skip();
    const dir = makeWorkspace({ 'agent.yml': 'turns: []\n' });
    const r = await runRalph(['init', '--preset', 'solo', '--backend', 'fake'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('sandbox: on (bwrap works here; the agent can touch only this project)');
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    expect(parse(yml).sandbox).toBe('on');
    expect(yml).toContain('# The sandbox, recommended:');
    const dry = await runRalph(['run', '--dry-run'], dir, { RALPH_FAKE_SCRIPT: 'agent.yml' });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/# sandbox\non:\n/);
  });

  it('without bwrap on PATH: sandbox stays off, and the line says what to install', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['init', '--preset', 'solo'], dir, { PATH: gitOnlyBin() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('sandbox: left off (bwrap (bubblewrap)');
    expect(r.stdout).toContain('sudo apt-get install bubblewrap');
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8');
    expect(parse(yml).sandbox).toBeUndefined();
    expect(yml).toMatch(/^# sandbox: on$/m);
  });
});
