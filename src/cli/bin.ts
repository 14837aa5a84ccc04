import { fileURLToPath } from 'node:url';
import { unsupportedPlatform } from '../process/platform.ts';
import { installCodeCache } from '../state/cache/code-cache.ts';
import { processIO } from './io.ts';

// The only place that exits the process. `ralph emit` runs inside agent tool calls, so it loads
// only its own module, not the CLI framework, config schema and engine.
async function main(args: string[]): Promise<void> {
  const refusal = unsupportedPlatform(process.platform);
  if (refusal !== undefined) {
    // One line and exit 1 (a failure to start), before any command could spawn or lock anything.
    process.stderr.write(`ralph: ${refusal}\n`);
    process.exitCode = 1;
  } else if (args[0] === 'emit' && !args.includes('-h') && !args.includes('--help')) {
    const { emitCommand } = await import('./agent-tools/emit-command.ts');
    try {
      emitCommand(args.slice(1), process.cwd(), process.env);
    } catch (error) {
      process.stderr.write(`ralph: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  } else {
    const { runCli } = await import('./cli-program.ts');
    const code = await runCli(args, { ...processIO(), exit: (code) => process.exit(code) });
    process.exitCode = code;
    // The command is over and its exit code chosen: a late Ctrl-C (the second of a double press that
    // lands after the run saved its stop) ends the process with that code, not a death by signal.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.on(signal, () => process.exit(code));
  }
}

// A CLI process validates its config once, on a config-cache miss: zod's JIT (a `new Function` per
// object schema at its first parse, ~20 of them as the config schema's defaults are made) cost a
// fresh start ~15 ms of CPU and saved none. zod keeps its settings (z.config's) in this global.
const zodSettings = globalThis as { __zod_globalConfig?: Record<string, unknown> };
zodSettings.__zod_globalConfig = { ...zodSettings.__zod_globalConfig, jitless: true };

// The bundle's chunks load through V8's code cache from here on (in the bundle, this module's URL
// is the bundle's entry file; in tsc's output, an ES module, nothing changes).
installCodeCache(fileURLToPath(import.meta.url));

/** The command, settled when it is over: bin/ralph reports a failure to load or a crash. */
export const done: Promise<void> = main(process.argv.slice(2));
