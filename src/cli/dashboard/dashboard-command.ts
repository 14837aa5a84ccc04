import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { FleetSource } from '../../dashboard/fleet-section.ts';
import type { Dashboard } from '../../dashboard/server.ts';
import { UsageError } from '../../errors.ts';
import type { CliIO } from '../io.ts';
import { untilInterrupted } from '../signals.ts';

export interface DashboardFlags {
  /** 0 or none: a free port. */
  port?: number | undefined;
  host?: string | undefined;
  unsafeExpose?: boolean | undefined;
  /** `--allow-host`: more names the Host header may carry. */
  allowHost?: string[] | undefined;
  open?: boolean | undefined;
  /** The token from (or into) this file, so it survives restarts (Prometheus reads it too). */
  tokenFile?: string | undefined;
}

/** Starts the dashboard (lazily loaded: hono only when asked for) and prints its URL once. */
export async function openDashboard(
  flags: DashboardFlags,
  io: CliIO,
  fleet?: FleetSource,
): Promise<Dashboard> {
  const { startDashboard } = await import('../../dashboard/server.ts');
  const { tokenFromFile } = await import('../../dashboard/token-file.ts');
  const { allowHostName } = await import('../../dashboard/security.ts');
  const host = flags.host ?? '127.0.0.1';
  const allowHosts = (flags.allowHost ?? []).map((value) => {
    const name = allowHostName(value);
    if (name === undefined)
      throw new UsageError(
        `--allow-host expects a host name or address without scheme or port (e.g. my.box or 192.168.1.20), got ${JSON.stringify(value)}`,
      );
    return name;
  });
  const d = await startDashboard({
    env: io.env,
    host,
    port: flags.port ?? 0,
    unsafeExpose: flags.unsafeExpose,
    allowHosts,
    token: flags.tokenFile === undefined ? undefined : tokenFromFile(resolve(io.cwd, flags.tokenFile)),
    fleet,
  });
  if (flags.unsafeExpose)
    io.err(
      `ralph: warning — the dashboard listens on ${host}: anyone who can reach it and has the URL can stop and steer your loops\nralph dashboard: answers to Host ${d.hosts.join(', ')}\n`,
    );
  io.err(`ralph dashboard: ${d.url}\n`);
  if (flags.open) {
    // The desktop's browser; nothing happens where there is none.
    const child = spawn('xdg-open', [d.url], { stdio: 'ignore', detached: true });
    child.on('error', () =>
      io.err('ralph: could not open a browser (xdg-open); open the URL above yourself\n'),
    );
    child.unref();
  }
  return d;
}

/** `ralph dashboard`: serves until Ctrl-C. */
export async function dashboardCommand(flags: DashboardFlags, io: CliIO): Promise<number> {
  const { fleetForDashboard } = await import('../fleet/fleet-dashboard.ts');
  const fleet = fleetForDashboard(io);
  const d = await openDashboard(flags, io, fleet?.source);
  await untilInterrupted(
    (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
    ['SIGINT', 'SIGTERM'],
  );
  await d.close();
  await fleet?.close();
  return 0;
}
