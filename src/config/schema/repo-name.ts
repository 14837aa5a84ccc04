// Without zod: the engine names repositories on `ralph run`'s start, where the config schema is not
// loaded when the config comes from its cache.
import { basename } from 'node:path';

/** The name a repository goes by: its `name`, else the basename of its path. */
export function repoName(repo: { readonly path: string; readonly name?: string | undefined }): string {
  return repo.name ?? basename(repo.path.replace(/[/\\]+$/, ''));
}
