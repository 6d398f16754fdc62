import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import type { Plugin, Rolldown } from 'vite';

/** The part of Vite's build manifest (`.vite/manifest.json`) that says which file needs which. */
export type Manifest = Record<string, { file: string; imports?: string[]; css?: string[] }>;

/** A page whose first load has a ceiling: the lazy route modules it loads besides the entry. */
export type Budget = { page: string; routeModules: string[]; maxBrotliBytes: number };

/** The build manifest of a bundle being written (`build.manifest` must be on). */
export function bundleManifest(bundle: Rolldown.OutputBundle): Manifest {
  const asset = bundle['.vite/manifest.json'];
  if (asset?.type !== 'asset') throw new Error('the build wrote no manifest (build.manifest)');
  return JSON.parse(String(asset.source)) as Manifest;
}

/**
 * The files a browser fetches to show a page: the entry (`index.html`'s script) with
 * everything it imports, then each lazy route module the page matches with its imports;
 * the JavaScript, then the styles those modules import.
 */
export function pageFiles(
  manifest: Manifest,
  routeModules: readonly string[],
): { scripts: string[]; styles: string[] } {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (chunk === undefined) {
      throw new Error(`${key} is not in the build manifest: has the route module moved?`);
    }
    if (scripts.has(chunk.file)) return;
    scripts.add(chunk.file);
    chunk.css?.forEach((file) => styles.add(file));
    chunk.imports?.forEach(visit);
  };
  visit('index.html');
  routeModules.forEach(visit);
  return { scripts: [...scripts], styles: [...styles] };
}

/** The JavaScript files a browser fetches to show a page (see `pageFiles`). */
export const firstLoadFiles = (manifest: Manifest, routeModules: readonly string[]): string[] =>
  pageFiles(manifest, routeModules).scripts;

export type Weight = { files: number; bytes: number; gzipBytes: number; brotliBytes: number };

const brotliMax = { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } };

/** What one file weighs: as built, and compressed as the gateway sends it. */
export function weigh(code: string | Uint8Array): Weight {
  const bytes = typeof code === 'string' ? Buffer.from(code) : code;
  return {
    files: 1,
    bytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    brotliBytes: brotliCompressSync(bytes, brotliMax).length,
  };
}

export const total = (weights: readonly Weight[]): Weight =>
  weights.reduce(
    (sum, weight) => ({
      files: sum.files + weight.files,
      bytes: sum.bytes + weight.bytes,
      gzipBytes: sum.gzipBytes + weight.gzipBytes,
      brotliBytes: sum.brotliBytes + weight.brotliBytes,
    }),
    { files: 0, bytes: 0, gzipBytes: 0, brotliBytes: 0 },
  );

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** One line of the build's report; an error message when the page is over its ceiling. */
export function judge(budget: Budget, weight: Weight): { line: string; error?: string } {
  const line =
    `${budget.page}: first load ${weight.files} JS files, ${kb(weight.bytes)}, ` +
    `${kb(weight.brotliBytes)} br, ${kb(weight.gzipBytes)} gzip (budget ${kb(budget.maxBrotliBytes)} br)`;
  if (weight.brotliBytes <= budget.maxBrotliBytes) return { line };
  return {
    line,
    error:
      `${budget.page} needs ${kb(weight.brotliBytes)} of compressed JavaScript at first load, over its ` +
      `budget of ${kb(budget.maxBrotliBytes)}. A page's first load must not carry code it does not show: ` +
      `load the new import with the route that uses it (a route's lazy, see ARCHITECTURE.md).`,
  };
}

/**
 * Fails the build when a page's first load outgrows its budget, so that a heavy import
 * cannot slip into the sign-in page (or the QR code's instruction page) unseen.
 */
export function firstLoadBudget(budgets: readonly Budget[]): Plugin {
  return {
    name: 'portal-first-load-budget',
    apply: 'build',
    writeBundle(_, bundle) {
      const manifest = bundleManifest(bundle);
      const weights = new Map<string, Weight>();
      const weightOf = (file: string) => {
        const output = bundle[file];
        if (output?.type !== 'chunk') throw new Error(`${file} is not a chunk of this build`);
        const weight = weights.get(file) ?? weigh(output.code);
        weights.set(file, weight);
        return weight;
      };
      const errors: string[] = [];
      for (const budget of budgets) {
        const verdict = judge(budget, total(firstLoadFiles(manifest, budget.routeModules).map(weightOf)));
        this.info(verdict.line);
        if (verdict.error) errors.push(verdict.error);
      }
      if (errors.length > 0) this.error(errors.join('\n'));
    },
  };
}
