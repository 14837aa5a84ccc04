import { type RegistryEntry, recordInRegistry, registryFile } from '../../state/run-registry.ts';
import type { Reporter } from '../reporter.ts';

/**
 * The per-user list of workspaces where loops ran (`ralph runs`, the dashboard): a line when the
 * run starts (`loop.started`) and one when it has ended (`close`), each with the run as `entry`
 * says it is then. `onWait` hears when another process holds the registry's lock.
 *
 * The start line is written at the next turn of the event loop, not inside `loop.started`: its
 * lock, append and release (a few ms under load) then overlap the run's first `git status`, or
 * follow the first agent's spawn, instead of delaying it. `close` writes it first if it is still due.
 */
export function createRegistryReporter(o: {
  env: NodeJS.ProcessEnv;
  entry: () => RegistryEntry;
  onWait: (message: string) => void;
}): Reporter {
  const record = () =>
    recordInRegistry(o.env, o.entry(), (pid) =>
      o.onWait(
        `waiting for the run registry (${registryFile(o.env)}), locked by ${pid === undefined ? 'another ralph' : `pid ${pid}`}`,
      ),
    );
  let startDue: NodeJS.Immediate | undefined;
  // What the deferred start line's wait notice threw (another reporter failing): the run fails with it at close.
  let failed: { error: unknown } | undefined;
  const recordStart = () => {
    startDue = undefined;
    try {
      record();
    } catch (error) {
      failed ??= { error };
    }
  };
  return {
    onEvent: (e) => {
      if (e.type === 'loop.started' && startDue === undefined) startDue = setImmediate(recordStart);
    },
    close: () => {
      if (startDue !== undefined) {
        clearImmediate(startDue);
        recordStart();
      }
      record();
      if (failed) throw failed.error;
    },
  };
}
