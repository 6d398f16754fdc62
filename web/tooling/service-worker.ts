import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import { build, type Plugin, type ResolvedConfig } from 'vite';

import { bundleManifest, pageFiles, type Manifest } from './first-load-budget.ts';

/** The worker's source and the page whose shell it keeps. */
export type ServiceWorkerOptions = { source: string; routeModules: string[] };

/**
 * What the worker saves at install: `index.html`, the icon it links, and the scripts and
 * styles the public page loads (its entry and lazy route, with their imports), as absolute
 * paths; and a version naming that set, which changes with every file in it.
 */
export function shellFiles(
  manifest: Manifest,
  routeModules: readonly string[],
): { files: string[]; version: string } {
  const { scripts, styles } = pageFiles(manifest, routeModules);
  const files = ['/index.html', '/favicon.svg', ...[...scripts, ...styles].map((file) => `/${file}`)];
  return { files, version: createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16) };
}

/**
 * Builds the service worker to `/sw.js` once the client is written: one classic script (a
 * worker registered without `type: 'module'` runs in every browser that has workers), at the
 * root so that its scope is the whole site, its name the same in every release so that the
 * browser finds the new one, and its shell list taken from this build's manifest.
 */
export function serviceWorker({ source, routeModules }: ServiceWorkerOptions): Plugin {
  let config: ResolvedConfig | undefined;
  return {
    name: 'portal-service-worker',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async writeBundle(_, bundle) {
      if (!config) throw new Error('the service worker plugin ran before the config was resolved');
      const shell = shellFiles(bundleManifest(bundle), routeModules);
      const built = await build({
        configFile: false,
        root: config.root,
        logLevel: 'warn',
        publicDir: false,
        resolve: { alias: config.resolve.alias },
        define: {
          __SHELL_FILES__: JSON.stringify(shell.files),
          __SHELL_VERSION__: JSON.stringify(shell.version),
        },
        build: {
          write: false,
          copyPublicDir: false,
          rolldownOptions: { input: source, output: { format: 'iife', entryFileNames: 'sw.js' } },
        },
      });
      const outputs = Array.isArray(built) ? built : [built];
      const chunks = outputs.flatMap((output) => ('output' in output ? output.output : []));
      const worker = chunks.find((chunk) => chunk.type === 'chunk' && chunk.fileName === 'sw.js');
      if (worker?.type !== 'chunk') throw new Error(`building ${source} gave no sw.js`);
      await writeFile(resolve(config.root, config.build.outDir, 'sw.js'), worker.code);
      this.info(`sw.js: ${shell.files.length} files of the public page's shell, version ${shell.version}`);
    },
  };
}
