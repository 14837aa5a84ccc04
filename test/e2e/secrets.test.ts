import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, runRalph } from '../helpers/workspace.ts';

/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

/** Planted credentials: a non-standard vendor variable, one from cli.env, and every common key shape. */
const ENV_SECRET = 'acme-Zq8vR2pL9xW4tY7u';
const CONFIG_SECRET = 'svc-Mk3nB6vC1xZ8aQ5w';
const SHAPES = [
  `sk-ant-api03-${'A1b2C3d4E5f6G7h8'.repeat(2)}`,
  `sk-proj-${'Q9w8E7r6T5y4U3i2O1p0'.repeat(2)}`,
  `AIza${'SyD4f5G6h7J8k9L0zXcVbNm1234567890a'}`,
  `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7'}`,
  `github_pat_${'11ABCDEFG0123456789_abcdefghijklmnop'}`,
  `xoxb-${'123456789012-abcdefghijkl'}`,
  'AKIAIOSFODNN7EXAMPLE',
];
const ALL = [ENV_SECRET, CONFIG_SECRET, ...SHAPES];

describe('planted API keys never reach a file, the console or status', () => {
  it('not in logs, diagnostics, records, state, -v console output or ralph status --json — even split across a 64 KiB read', async () => {
    // The environment key lands exactly across the 64 KiB boundary of the agent's first stdout read.
    const pad = 'x'.repeat(65_536 - 8);
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  max_iterations: 1',
        'cli:',
        '  backend: fake',
        '  fake_script: agent.yml',
        '  env:',
        `    OTHER_SERVICE_CREDENTIAL: ${CONFIG_SECRET}`,
      ].join('\n'),
      'agent.yml': [
        'turns:',
        '  - do:',
        `      - print: "${pad}${ENV_SECRET} and ${CONFIG_SECRET}\\n"`,
        ...SHAPES.map((s) => `      - print: "key ${s}\\n"`),
        `      - stderr: "auth failed for ${ENV_SECRET} ${SHAPES[0]}\\n"`,
        '      - exit: 3',
      ].join('\n'),
    });
    const env = { ACME_CLOUD_API_KEY: ENV_SECRET, RALPH_DIAGNOSTICS: '1' };
    const run = await runRalph(['run', '-v'], dir, env);
    expect(run.code).toBe(2);
    const status = await runRalph(['status', '--json'], dir, env);
    const seen: [string, string][] = [
      ['console', run.stdout + run.stderr],
      ['status --json', status.stdout],
      ...allFiles(join(dir, '.ralph')).map((f) => [f, readFileSync(f, 'utf8')] as [string, string]),
    ];
    // The check is not vacuous: the agent's output (padded) did reach the log.
    expect(seen.some(([f, t]) => f.includes('/logs/') && t.includes(pad))).toBe(true);
    const leaks = seen.flatMap(([where, text]) =>
      ALL.filter((s) => text.includes(s)).map((s) => `${where}: ${s}`),
    );
    expect(leaks).toEqual([]);
  });
});
