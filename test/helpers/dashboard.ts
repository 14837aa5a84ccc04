import { type RalphProcess, ROOT, startRalph, waitFor } from './workspace.ts';

/** Debian's Chromium, which the browser tests drive (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';

export interface TestDashboard {
  process: RalphProcess;
  /** The URL printed once, with its token. */
  url: string;
  origin: string;
  token: string;
  /** GET `path` with the session cookie (the token URL is visited once, on the first call). */
  get(path: string): Promise<Response>;
}

/**
 * `ralph dashboard` on a free port; `track` gets the process so the test stops it afterwards.
 * Resolves once the URL is printed.
 */
export async function openDashboard(o: {
  track: (p: RalphProcess) => void;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
}): Promise<TestDashboard> {
  const p = startRalph(['dashboard', ...(o.args ?? [])], o.cwd ?? ROOT, o.env ?? {});
  o.track(p);
  await waitFor(() => /ralph dashboard: http:\/\/\S+/.test(p.stderr()), 15_000, 'the dashboard URL');
  const url = /ralph dashboard: (http:\/\/\S+)/.exec(p.stderr())?.[1] as string;
  const u = new URL(url);
  let cookie: string | undefined;
  return {
    process: p,
    url,
    origin: u.origin,
    token: u.searchParams.get('token') as string,
    async get(path) {
      if (cookie === undefined) {
        const first = await fetch(url, { redirect: 'manual' });
        cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
      }
      return fetch(`${u.origin}${path}`, { headers: { cookie } });
    },
  };
}
