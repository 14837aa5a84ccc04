import { posix } from 'node:path';

/**
 * Where credentials live under a home directory. `sandbox: on` hides the whole home, and no rule
 * (an allow-list entry, a backend's config dir, the workspace itself) may show one of these again:
 * a user who wants that must run `sandbox: off` or name a narrower path.
 */
export const SECRET_HOME_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.config/gcloud',
  '.azure',
  '.kube',
  '.docker/config.json',
  '.npmrc',
  '.netrc',
  '.pypirc',
  '.git-credentials',
  '.password-store',
  '.vault-token',
];

/** The secret paths of `home`, absolute. */
export function homeSecrets(home: string): string[] {
  return SECRET_HOME_PATHS.map((rel) => posix.join(home, rel));
}
