import { describe, expect, it } from 'vitest';
import { makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

// `ralph config explain` and validate run in process: test/cli/config-layers.test.ts.
describe('config layers: defaults → user config → project → preset → flags', () => {
  it('ralph run --preset NAME runs a preset without ralph init (its prompt from the preset)', async () => {
    const dir = makeWorkspace({ 'agent.yml': 'turns:\n  - do: [{ print: "done\\nLOOP_COMPLETE" }]\n' });
    const flags = ['--preset', 'solo', '--set', 'cli.backend=fake', '--set', 'cli.fake_script=agent.yml'];
    const dry = await runRalph(['run', ...flags, '--dry-run'], dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('# first prompt (PROMPT.md (preset solo),');
    const explain = await runRalph(
      ['config', 'explain', 'event_loop.max_iterations', '--preset', 'solo'],
      dir,
    );
    expect(explain.stdout).toMatch(/= 30 +← preset .*presets\/solo\/ralph\.yml:\d+$/m);
    const r = await runRalph(['run', ...flags], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    const bad = await runRalph(['run', '--preset', 'nope'], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/nope/);
  });
});
