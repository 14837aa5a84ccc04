import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

/** The fleet's optional peers and what they bring; a user's install may have none of them. */
const FLEET_ONLY = new Set(['bullmq', 'ioredis', 'msgpackr', 'msgpackr-extract', '@msgpackr-extract']);
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  peerDependencies: Record<'bullmq' | 'ioredis', string>;
};
const PEERS = MANIFEST.peerDependencies;

/**
 * A project that depends on the built ralph-harness the way npm lays it out (a copy of the files
 * npm packs, under node_modules/, with .bin/ralph), beside every other package of this checkout but
 * the fleet's: Node's resolution from the copy cannot see BullMQ, ioredis or msgpackr.
 */
function projectWithoutFleetPackages(): { project: string; pkg: string } {
  const project = makeWorkspace();
  const modules = join(project, 'node_modules');
  const pkg = join(modules, 'ralph-harness');
  mkdirSync(pkg, { recursive: true });
  for (const part of ['bin', 'dist', 'presets', 'schema', 'package.json'])
    cpSync(join(ROOT, part), join(pkg, part), { recursive: true, filter: (src) => !src.endsWith('.map') });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || FLEET_ONLY.has(name) || name === 'ralph-harness') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../ralph-harness/bin/ralph', join(modules, '.bin', 'ralph'));
  return { project, pkg };
}

describe('an install without the fleet’s optional packages', () => {
  let project: string;
  let pkg: string;
  beforeAll(() => {
    ({ project, pkg } = projectWithoutFleetPackages());
  });

  it('cannot see them (the check below would prove nothing otherwise)', () => {
    const r = spawnSync(process.execPath, ['-e', "import('bullmq').then(() => process.exit(3))"], {
      cwd: pkg,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Cannot find package 'bullmq'");
    expect(existsSync(join(project, 'node_modules', 'ink'))).toBe(true);
  });

  it('ralph fleet …: one line with the install command for this project, exit 1, no stack', () => {
    const expected = `ralph: ralph fleet needs bullmq and ioredis, optional packages that are not installed: run \`npm install bullmq@${PEERS.bullmq} ioredis@${PEERS.ioredis}\` in ${project} (the project that depends on ralph-harness)\n`;
    const redis = ['--redis', 'redis://127.0.0.1:1'];
    for (const args of [
      ['worker', ...redis],
      ['submit', '--repo', project, ...redis],
      ['status', ...redis],
      ['logs', 'r1', ...redis],
      ['cancel', 'r1', ...redis],
      ['drain', ...redis],
      // Before the Redis URL is looked for: the packages are the first thing to fix.
      ['status'],
    ]) {
      const r = spawnSync(join(pkg, 'bin', 'ralph'), ['fleet', ...args], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, RALPH_REDIS_URL: '', XDG_CONFIG_HOME: join(project, 'config') },
      });
      expect({ args, stderr: r.stderr, status: r.status }).toEqual({ args, stderr: expected, status: 1 });
      expect(r.stdout).toBe('');
    }
  });

  it('the library entry and the rest of the CLI load without them', () => {
    const lib = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(pkg, 'dist', 'index.js'))}); console.log(typeof m.runLoop);`,
      ],
      { encoding: 'utf8' },
    );
    expect(lib.stderr).toBe('');
    expect(lib.stdout).toBe('function\n');
    const version = spawnSync(join(pkg, 'bin', 'ralph'), ['--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toBe(MANIFEST.version);
  });
});
