// Writes docs/reference/cli.md from the commander definitions in the built CLI (`npm run docs`
// builds first). A test fails while the committed page and the definitions disagree.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliProgram } from '../../dist/cli/cli-program.js';
import { cliReference } from '../../dist/cli/cli-reference.js';

const target = fileURLToPath(new URL('../../docs/reference/cli.md', import.meta.url));
writeFileSync(target, cliReference(cliProgram()));
process.stdout.write(`wrote ${target}\n`);
