// Runs a TypeScript script of this folder under Node through Vite's module runner
// (Node 20 cannot run TypeScript by itself): `node scripts/run-ts.mjs scripts/x.ts`.
import { resolve } from 'node:path';

import { runnerImport } from 'vite';

const [script] = process.argv.slice(2);
if (!script) throw new Error('usage: node scripts/run-ts.mjs <script.ts>');
await runnerImport(resolve(script), { configFile: false, logLevel: 'error' });
