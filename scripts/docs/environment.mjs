// Writes docs/reference/environment.md from the one list of RALPH_* variables in the built code
// (`npm run docs` builds first). A test fails while the committed page and the list disagree.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { environmentReference } from '../../dist/config/reference/environment.js';

const target = fileURLToPath(new URL('../../docs/reference/environment.md', import.meta.url));
writeFileSync(target, environmentReference());
process.stdout.write(`wrote ${target}\n`);
