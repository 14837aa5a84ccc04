import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a test file may not do when it shares its worker's module graph with the files after it
 * (`isolate: false`): each would change those files' modules, clock, environment or directory.
 */
export const SHARED_MODULE_LEAKS: readonly [RegExp, string][] = [
  [/\bvi\.(?:do)?mock\(/, 'replaces a module (vi.mock)'],
  [/\bvi\.(?:useFakeTimers|setSystemTime)\(/, 'fakes the clock'],
  [/\bvi\.stub(?:Env|Global)\(/, 'stubs the environment or a global'],
  [/\bprocess\.env(?:\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete\s+process\.env\b/, 'changes process.env'],
  [/\bprocess\.chdir\(/, 'changes the working directory'],
];

/** `file: what` for each leak in the .ts files under `root`/`dir` (paths from `root`, with `/`). */
export function sharedModuleLeaks(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const text = readFileSync(join(root, dir, name), 'utf8');
      const file = `${dir}/${name.split('\\').join('/')}`;
      return SHARED_MODULE_LEAKS.filter(([pattern]) => pattern.test(text)).map(
        ([, what]) => `${file}: ${what}`,
      );
    });
}
