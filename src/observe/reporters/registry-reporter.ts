import { type RegistryEntry, recordInRegistry, registryFile } from '../../state/run-registry.ts';
import type { Reporter } from '../reporter.ts';

/**
 * The per-user list of workspaces where loops ran (`ralph runs`, the dashboard): a line when the
 * run starts (`loop.started`) and one when it has ended (`close`), each with the run as `entry`
 * says it is then. `onWait` hears when another process holds the registry's lock.
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
  return {
    onEvent: (e) => {
      if (e.type === 'loop.started') record();
    },
    close: record,
  };
}
