// `make bench`, the web client's part: what a phone or a ward PC downloads to show a page
// and how Lighthouse 12 (mobile preset, Debian's Chromium) scores it, against the real
// `portal` serving the built client. Figures to read, never asserted.
//
//   node scripts/run-ts.mjs scripts/bench-web.ts   (PORTAL_BIN: the binary, release by default)
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

import { chromium, type BrowserContext } from '@playwright/test';
import lighthouse from 'lighthouse';

import { nurse } from '../e2e/support/accounts';
import { startPortal } from '../e2e/support/portal-server';

const webDir = resolve(import.meta.dirname, '..');
const dist = join(webDir, 'dist');
const chromiumPath = '/usr/bin/chromium';
/** Lighthouse runs per page; the median by performance score is reported. */
const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
/** The placeholder's text (strings.placeholder.text): a page not built yet shows it. */
const placeholderText = 'Раздел в разработке';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const brotli = (bytes: Buffer) =>
  brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } })
    .length;

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
}

type Download = { files: number; bytes: number; transferred: number; placeholder: boolean };

/** The JavaScript a cold browser fetches to show `path`: files, as built, as sent over the wire. */
async function firstLoad(context: BrowserContext, url: string): Promise<Download> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await page.goto(url, { waitUntil: 'networkidle' });
  const scripts = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((entry) => entry as PerformanceResourceTiming)
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
      .map((entry) => ({ bytes: entry.decodedBodySize, transferred: entry.encodedBodySize })),
  );
  const placeholder = (await page.getByText(placeholderText).count()) > 0;
  await page.close();
  return {
    files: scripts.length,
    bytes: scripts.reduce((sum, script) => sum + script.bytes, 0),
    transferred: scripts.reduce((sum, script) => sum + script.transferred, 0),
    placeholder,
  };
}

type Scores = { performance: number; accessibility: number; fcpMs: number; lcpMs: number; tbtMs: number };

/** Lighthouse's mobile preset on `url`, `runs` times; the median run by performance. */
async function score(context: BrowserContext, port: number, url: string, signedIn: boolean): Promise<Scores> {
  const results: Scores[] = [];
  for (let run = 0; run < runs; run++) {
    if (signedIn) {
      // The session lives in storage that Lighthouse would reset; the cache is emptied here instead.
      const page = await context.newPage();
      await (await context.newCDPSession(page)).send('Network.clearBrowserCache');
      await page.close();
    }
    const result = await lighthouse(url, {
      port,
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      disableStorageReset: signedIn,
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { categories, audits } = result.lhr;
    results.push({
      performance: Math.round((categories.performance?.score ?? 0) * 100),
      accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
      fcpMs: audits['first-contentful-paint']?.numericValue ?? NaN,
      lcpMs: audits['largest-contentful-paint']?.numericValue ?? NaN,
      tbtMs: audits['total-blocking-time']?.numericValue ?? NaN,
    });
  }
  results.sort((a, b) => a.performance - b.performance);
  const median = results[Math.floor(results.length / 2)];
  if (!median) throw new Error('no Lighthouse run');
  return median;
}

/** The largest chunk a route loads lazily (from the build manifest), and the largest JS file. */
function largestFiles(): string[] {
  const sizes = (file: string) => {
    const bytes = readFileSync(join(dist, file));
    return { file, bytes: bytes.length, brotli: brotli(bytes) };
  };
  const lines: string[] = [];
  const manifestPath = join(dist, '.vite/manifest.json');
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<
      string,
      { file: string; isDynamicEntry?: boolean }
    >;
    const routeChunks = Object.entries(manifest)
      .filter(([, chunk]) => chunk.isDynamicEntry)
      .map(([source, chunk]) => ({ source, ...sizes(chunk.file) }))
      .sort((a, b) => b.brotli - a.brotli);
    const largest = routeChunks[0];
    lines.push(
      largest
        ? `largest route chunk: ${largest.source} (${kb(largest.bytes)}, ${kb(largest.brotli)} br), of ${routeChunks.length} route chunks`
        : 'largest route chunk: none (no route loads lazily)',
    );
  } else {
    lines.push('largest route chunk: none (no build manifest: one bundle for every page)');
  }
  const files = readdirSync(join(dist, 'assets'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => sizes(`assets/${name}`))
    .sort((a, b) => b.bytes - a.bytes);
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const [largest] = files;
  if (largest)
    lines.push(`largest JS file: ${largest.file} (${kb(largest.bytes)}, ${kb(largest.brotli)} br)`);
  lines.push(`all JS: ${files.length} files, ${kb(total)}`);
  return lines;
}

async function main() {
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} has no build: run npm run build first`);
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing (apt-get install chromium)`);
  process.env.PORTAL_BIN ??= join(webDir, '../target/release/portal');
  const portal = await startPortal();
  const profile = await mkdtemp(join(tmpdir(), 'portal-bench-chromium-'));
  const port = await freePort();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    locale: 'ru-RU',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--remote-debugging-port=${port}`,
    ],
  });
  try {
    const pages = [
      { name: '/login', path: '/login', signedIn: false },
      { name: 'public instruction', path: '/short-instruction/1', signedIn: false },
      { name: '/home signed in', path: '/home', signedIn: true },
    ];
    const rows: string[] = [];
    for (const { name, path, signedIn } of pages) {
      if (signedIn) {
        const page = await context.newPage();
        await page.goto(`${portal.url}/login`);
        await page.getByLabel('Введите логин:').fill(nurse.login);
        await page.getByLabel('Введите пароль:').fill(nurse.password);
        await page.getByRole('button', { name: 'Войти' }).click();
        await page.waitForURL(/\/home$/);
        await page.close();
      }
      const download = await firstLoad(context, `${portal.url}${path}`);
      const label = download.placeholder ? `${name} (not yet built: placeholder page)` : name;
      const wire = `${download.files} JS files, ${kb(download.bytes)} as built, ${kb(download.transferred)} sent`;
      const scores = await score(context, port, `${portal.url}${path}`, signedIn);
      rows.push(
        `${label}\n  first load: ${wire}\n  Lighthouse 12 mobile: performance ${scores.performance}, ` +
          `accessibility ${scores.accessibility} (FCP ${(scores.fcpMs / 1000).toFixed(1)} s, ` +
          `LCP ${(scores.lcpMs / 1000).toFixed(1)} s, TBT ${Math.round(scores.tbtMs)} ms; median of ${runs})`,
      );
    }
    console.log(`\nweb client, first load (cold cache, as served by ${process.env.PORTAL_BIN})`);
    console.log(rows.join('\n'));
    console.log(largestFiles().join('\n'));
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await portal.stop();
  }
}

await main();
