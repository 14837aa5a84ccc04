import { resolve } from 'node:path';
import { readOptional } from '../../state/io/read-optional.ts';

/** True when the marker file exists and contains the marker text (a missing file is not complete). */
export function markerReached(workspace: string, marker: { file: string; text: string }): boolean {
  return readOptional(resolve(workspace, marker.file), 'absent')?.includes(marker.text) ?? false;
}
