import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeWorkspace, ROOT, readRecords, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

const PERSISTENT = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  '  persistent: true',
  '  max_iterations: 2',
  '  cooldown_delay_seconds: 4',
  'cli:',
  '  backend: fake',
  '  fake_script: agent.yml',
  'hats:',
  '  scanner:',
  '    triggers: [task.start, task.resume]',
  '    publishes: [LOOP_COMPLETE]',
  '    instructions: Scan the board.',
].join('\n');

describe('persistent mode says it is idle, not done', () => {
  it('an idle scan is ○ idle (not ✓ complete); the console and ralph status say idle with the next scan', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Scan.\n',
      'ralph.yml': PERSISTENT,
      'agent.yml': 'turns:\n  - do: [{ run: "ralph emit LOOP_COMPLETE" }]\n',
    });
    const ralph = startRalph(['run'], dir);
    await waitFor(() => ralph.stdout().includes('idle — waiting for changes'), 15_000, 'the idle line');
    const status = await runRalph(['status'], dir);
    // A status read after the scan fell due (a slow machine) says so instead of counting down.
    expect(status.stdout).toMatch(
      /^run \S+: idle — waiting for changes \(next scan (in \d+s|due)\); running /,
    );
    const r = await ralph.done;
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/○ iteration 1 idle/);
    expect(r.stdout).not.toMatch(/✓ iteration \d complete/);
    expect(r.stdout).toMatch(/idle — waiting for changes \(next scan in 4s\); `ralph stop` ends the loop/);
    expect(readRecords(dir).map((x) => x.verdict)).toEqual(['idle', 'idle']);
  });

  it('a silent agent gets a heartbeat line, at most once per heartbeat interval', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Think.\n',
      'ralph.yml':
        'event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: 1\n  heartbeat_seconds: 1\ncli:\n  backend: fake\n  fake_script: agent.yml\n',
      'agent.yml': 'turns:\n  - do: [{ sleep: 2.8 }, { print: done }]\n',
    });
    const r = await runRalph(['run'], dir);
    const beats = r.stdout.match(/^ {2}agent running \d+s, last output \d+s ago$/gm) ?? [];
    expect(beats.length).toBeGreaterThanOrEqual(1);
    expect(beats.length).toBeLessThanOrEqual(3);
  });

  it('the board preset watches its folders, and ralph init says an idle board costs no agent call', async () => {
    const yml = parse(readFileSync(join(ROOT, 'presets', 'board', 'ralph.yml'), 'utf8'));
    expect(yml.event_loop.idle_watch).toEqual(['work', 'proposed']);
    expect(yml.event_loop.cooldown_delay_seconds).toBeUndefined();
    const dir = makeWorkspace({});
    const r = await runRalph(['init', '--preset', 'board'], dir);
    expect(r.stdout).toContain('waits for changes in work/ and proposed/ without calling the agent');
  });
});
