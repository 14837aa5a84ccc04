import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE, preflightWorkspace as workspace } from '../helpers/preflight-workspace.ts';
import { readRecords, runRalph } from '../helpers/workspace.ts';

// config validate and doctor on the same cases run in process: test/cli/preflight.test.ts.
describe('one preflight: config validate and doctor catch what run would fail on', () => {
  it('run stops before the first agent call on a missing gate command and a missing push remote', async () => {
    for (const yml of [
      `${FAKE}gates:\n  tests:\n    command: no-such-test-runner --ci\n`,
      `${FAKE}git:\n  commit: true\n  push: true\n`,
    ]) {
      const dir = workspace(yml);
      const r = await runRalph(['run'], dir);
      expect(r.code, r.stdout).toBe(1);
      // The console says it in words once ("health check failed (gates)"); state.json names the reason.
      expect(r.stdout + r.stderr).toMatch(/health check failed/);
      expect(JSON.parse(readFileSync(join(dir, '.ralph', 'state.json'), 'utf8')).stop_reason).toBe(
        'health_check',
      );
      expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
      expect(readRecords(dir)).toEqual([]);
    }
  });
});
