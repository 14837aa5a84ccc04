import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workspace.ts';

/** opencode's names for Node's platforms (its packages say `windows`, not `win32`). */
const OPENCODE_PLATFORMS: Readonly<Record<string, string>> = {
  darwin: 'darwin',
  linux: 'linux',
  win32: 'windows',
};

/**
 * The real opencode binary for this machine. The `opencode-ai` devDependency lists one package
 * per platform as optional dependencies and copies the right binary into place in a postinstall
 * script, which npm blocks unless allowed; so the tests pick the binary themselves, in the
 * postinstall's order for a glibc machine, from the platform packages npm installed.
 */
export function opencodeBinary(): string {
  const platform = OPENCODE_PLATFORMS[process.platform] ?? process.platform;
  const base = `opencode-${platform}-${process.arch}`;
  const exe = platform === 'windows' ? 'opencode.exe' : 'opencode';
  for (const name of [base, `${base}-baseline`, `${base}-musl`, `${base}-baseline-musl`]) {
    const path = join(ROOT, 'node_modules', name, 'bin', exe);
    if (existsSync(path)) return path;
  }
  const manifest = join(ROOT, 'node_modules', 'opencode-ai', 'package.json');
  const version = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
    : 'latest';
  throw new Error(
    `no opencode binary for ${process.platform}-${process.arch} in node_modules (package-lock.json names only the opencode platform packages its registry had): run \`npm install --no-save ${base}@${version}\``,
  );
}
