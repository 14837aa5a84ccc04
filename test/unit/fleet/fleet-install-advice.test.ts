import { describe, expect, it } from 'vitest';
import { fleetInstallAdvice, installKind, isMissingPackage } from '../../../src/fleet/open-fleet.ts';

const RANGES = { bullmq: '^6.7.0', ioredis: '^6.0.0' };
const WHAT = 'ralph fleet needs bullmq and ioredis, optional packages that are not installed';

describe('installKind', () => {
  const files =
    (...paths: string[]) =>
    (path: string) =>
      paths.includes(path);
  it('a global install: under node_modules, ralph linked from the prefix’s bin/', () => {
    expect(installKind('/usr/local/lib/node_modules/ralph-harness', files('/usr/local/bin/ralph'))).toBe(
      'global',
    );
  });
  it('a project’s dependency: its node_modules/.bin/ralph', () => {
    expect(installKind('/p/node_modules/ralph-harness', files('/p/node_modules/.bin/ralph'))).toBe('local');
  });
  it('a clone of the repository', () => {
    expect(installKind('/src/ralph', files('/src/ralph/node_modules/.bin/ralph'))).toBe('checkout');
  });
});

describe('fleetInstallAdvice', () => {
  it('names the packages with the ranges Ralph declares, for each kind of install', () => {
    expect(fleetInstallAdvice('global', '/usr/lib/node_modules/ralph-harness', RANGES)).toBe(
      `${WHAT}: run \`npm install -g bullmq@^6.7.0 ioredis@^6.0.0\``,
    );
    expect(fleetInstallAdvice('local', '/p/node_modules/ralph-harness', RANGES)).toBe(
      `${WHAT}: run \`npm install bullmq@^6.7.0 ioredis@^6.0.0\` in /p (the project that depends on ralph-harness)`,
    );
    expect(fleetInstallAdvice('checkout', '/src/ralph', RANGES)).toBe(
      `${WHAT}: run \`npm install\` in /src/ralph (they are among its devDependencies)`,
    );
  });
  it('is one line, and names bare packages when no range is declared', () => {
    const advice = fleetInstallAdvice('global', '/g/node_modules/ralph-harness', {});
    expect(advice).toBe(`${WHAT}: run \`npm install -g bullmq ioredis\``);
    expect(advice).not.toContain('\n');
  });
});

describe('isMissingPackage', () => {
  const error = (code: string, message: string) => Object.assign(new Error(message), { code });
  it('is a package that cannot be found, from an import or from require() (the CLI bundle is CommonJS)', () => {
    expect(
      isMissingPackage(error('ERR_MODULE_NOT_FOUND', "Cannot find package 'bullmq' imported from /x.js")),
    ).toBe(true);
    expect(
      isMissingPackage(error('MODULE_NOT_FOUND', "Cannot find module 'msgpackr'\nRequire stack:\n- /x.cjs")),
    ).toBe(true);
  });
  it('is not a missing file of Ralph’s own, nor another error', () => {
    expect(
      isMissingPackage(
        error('ERR_MODULE_NOT_FOUND', "Cannot find module '/r/dist/x.js' imported from /y.js"),
      ),
    ).toBe(false);
    expect(isMissingPackage(error('MODULE_NOT_FOUND', "Cannot find module './ralph-cli-x.cjs'"))).toBe(false);
    expect(isMissingPackage(error('MODULE_NOT_FOUND', "Cannot find module '/r/dist/ralph-cli-x.cjs'"))).toBe(
      false,
    );
    expect(isMissingPackage(new Error('boom'))).toBe(false);
  });
});
