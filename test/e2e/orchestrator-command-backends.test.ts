import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// ralph-orchestrator's minimal kiro preset, as it ships it (its keys Ralph ignores included), run
// with a stand-in `kiro-cli` on PATH: Ralph runs the command ralph-orchestrator runs.
const KIRO_PRESET = `event_loop:
  completion_promise: "LOOP_COMPLETE"
  max_iterations: 3
  max_runtime_seconds: 14400
  max_consecutive_failures: 5
cli:
  backend: "kiro"
  prompt_mode: "arg"
  pty_mode: false
  pty_interactive: true
  idle_timeout_secs: 30
core:
  guardrails:
    - "Fresh context each iteration - save learnings to memories for next time"
`;

describe("ralph-orchestrator's kiro backend, through the built CLI", () => {
  it('runs kiro-cli chat --no-interactive --trust-all-tools with the prompt last, its text read', async () => {
    const dir = makeWorkspace({
      'ralph.yml': KIRO_PRESET,
      'PROMPT.md': 'Write hello.txt, then say LOOP_COMPLETE.\n',
    });
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const argsFile = join(bin, 'args.txt');
    writeFileSync(
      join(bin, 'kiro-cli'),
      `#!/bin/sh\nfor a in "$@"; do printf '%s\\n---\\n' "$a"; done > ${JSON.stringify(argsFile)}\necho hello > hello.txt\necho "Wrote hello.txt."\necho LOOP_COMPLETE\n`,
    );
    chmodSync(join(bin, 'kiro-cli'), 0o755);
    const r = await runRalph(['run', '-q'], dir, { PATH: `${bin}:${process.env.PATH}` });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const args = readFileSync(argsFile, 'utf8').split('\n---\n');
    expect(args.slice(0, 3)).toEqual(['chat', '--no-interactive', '--trust-all-tools']);
    expect(args[3]).toContain('Write hello.txt, then say LOOP_COMPLETE.');
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
    const records = readRecords(dir);
    expect(records.map((x) => [x.backend, x.command, x.verdict])).toEqual([
      ['custom', 'kiro-cli', 'complete'],
    ]);
    expect(readState(dir).stop_reason).toBe('completed');
  });
});
