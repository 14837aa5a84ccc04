import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT, startProcess } from '../helpers/workspace.ts';

const run = promisify(execFile);

/** The first ```js block of docs/reference/api.md: the example the page opens with. */
function firstJsBlock(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'reference', 'api.md'), 'utf8');
  const block = /^```js\n([\s\S]*?)^```$/m.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/reference/api.md has no ```js block');
  return block;
}

/**
 * Installs the packed package into `app/node_modules/ralph-harness` as npm would lay it out: the
 * tarball's files only (a file missing from `files` is missing here too), with the runtime
 * dependencies it declares linked from this checkout's node_modules (no registry, no network).
 * Node resolves a linked package from its real path, so their own dependencies come along; a
 * development dependency that dist/ imported at run time would not resolve.
 */
async function installPacked(app: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const tarball = join(app, stdout.trim().split('\n').at(-1) as string);
  const installed = join(app, 'node_modules', 'ralph-harness');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(pkg.dependencies)) {
    const link = join(app, 'node_modules', name);
    mkdirSync(join(link, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  return installed;
}

describe('docs/reference/api.md', () => {
  it('opens with an example that runs against the packed, installed package: a loop steered by tell, and its summary', async () => {
    const app = makeWorkspace({ 'package.json': '{ "type": "module", "private": true }\n' });
    const installed = await installPacked(app);
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    writeFileSync(join(app, 'example.js'), firstJsBlock());
    // The example's workspace goes to the test's temp dir (mkdtemp under os.tmpdir()).
    const tmp = join(app, 'tmp');
    mkdirSync(tmp);
    const r = await startProcess(process.execPath, ['example.js'], app, {
      TMPDIR: tmp,
      // A developer's RALPH_AGENT would pick another agent over the example's ralph.yml.
      RALPH_AGENT: undefined,
    }).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('iteration 1/5 · fake');
    expect(r.stdout).toContain('stopped: completed after 2 iterations, exit code 0');
    expect(r.stdout).toMatch(/^cost: \$0\.0000, 0 tokens, log: .*\.ralph\/logs\/.*\.log$/m);
    // The guidance sent while iteration 1 ran is in the prompt iteration 2's agent received.
    expect(r.stdout).toContain('iteration 2 was told: true');
    const [workspace] = readdirSync(tmp).filter((name) => name.startsWith('ralph-api-'));
    const prompt2 = readFileSync(join(tmp, workspace as string, 'prompt-2.md'), 'utf8');
    expect(prompt2).toContain('## From a human (follow this)\n- Greet in French too.');
  }, 60_000);
});
