import { processIO } from './io.ts';
import { runCli } from './main.ts';

// The only place that exits the process.
const code = await runCli(process.argv.slice(2), processIO());
process.exitCode = code;
