import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** True when the marker file exists and contains the marker text (a missing file is not complete). */
export function markerReached(workspace: string, marker: { file: string; text: string }): boolean {
  try {
    return readFileSync(resolve(workspace, marker.file), 'utf8').includes(marker.text);
  } catch {
    return false;
  }
}
