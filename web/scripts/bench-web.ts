// `make bench`, the web client's part: what a phone or a ward PC downloads to show a page
// and how Lighthouse 12 (mobile preset, Debian's Chromium) scores it, against the real
// `portal` serving the built client; then whether Chromium would install the portal and
// how the QR code's page reopens with no network. Figures to read, never asserted.
//
//   node scripts/run-ts.mjs scripts/bench-web.ts   (PORTAL_BIN: the binary, release by default)
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

import { chromium, type BrowserContext, type CDPSession } from '@playwright/test';
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

/**
 * Empties the HTTP cache and the service worker (its registration and Cache Storage) of
 * `url`'s origin, keeping cookies and local storage (a session): a cold visit, without what
 * the worker saved on an earlier page.
 */
async function emptyCaches(cdp: CDPSession, url: string) {
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Storage.clearDataForOrigin', {
    origin: new URL(url).origin,
    storageTypes: 'cache_storage,service_workers',
  });
}

type Download = { files: number; bytes: number; transferred: number; placeholder: boolean };

/** The JavaScript a cold browser fetches to show `path`: files, as built, as sent over the wire. */
async function firstLoad(context: BrowserContext, url: string): Promise<Download> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await emptyCaches(cdp, url);
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
      // The session lives in storage that Lighthouse would reset; the caches are emptied here instead.
      const page = await context.newPage();
      await emptyCaches(await context.newCDPSession(page), url);
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

/**
 * Lighthouse 12 dropped its PWA category and the installable-manifest and service-worker
 * audits, so Chromium is asked itself, on `url` after one visit: its manifest as it parsed it
 * (Page.getAppManifest), the reasons it would refuse to install the portal
 * (Page.getInstallabilityErrors, the check behind its install prompt), whether the service
 * worker controls the page, and the page reopened with the network off (context.setOffline).
 */
async function installability(url: string): Promise<string[]> {
  // A profile of its own, never visited: a first visit. Not an incognito context, which
  // Chromium never offers to install from.
  const profile = await mkdtemp(join(tmpdir(), 'portal-bench-install-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    locale: 'ru-RU',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(url, { waitUntil: 'networkidle' });
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  // Activated on the first visit; it saves the instruction the page had already read.
  await page.waitForFunction(async () => {
    const saved = await (await caches.open('portal-public-instructions')).keys();
    return navigator.serviceWorker.controller !== null && saved.length > 0;
  });
  const manifest = await cdp.send('Page.getAppManifest');
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  const parsed = JSON.parse(manifest.data ?? '{}') as { name?: string; display?: string; icons?: unknown[] };
  const errors = installabilityErrors.map(
    (error) =>
      `${error.errorId}(${error.errorArguments.map((arg) => `${arg.name}=${arg.value}`).join(', ')})`,
  );
  const shell = await page.evaluate(async () => {
    const names = await caches.keys();
    const files = await Promise.all(
      names.map(async (name) => (await (await caches.open(name)).keys()).length),
    );
    return files.reduce((sum, count) => sum + count, 0);
  });

  await context.setOffline(true);
  const started = performance.now();
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor();
  const notice = page.getByText(/^Сохранённая копия от .* — нет связи$/);
  await notice.waitFor();
  const offlineMs = performance.now() - started;
  await page.evaluate(() => {
    window.addEventListener('online', () => sessionStorage.setItem('bench-online', 'yes'));
  });
  await context.setOffline(false);
  // The page reads again on `online`, or at the latest 10 s later (savedCopyRetryMs).
  await notice.waitFor({ state: 'detached', timeout: 30_000 });
  const refreshedMs = performance.now() - started - offlineMs;
  const onlineEvent = await page.evaluate(() => sessionStorage.getItem('bench-online') === 'yes');
  await context.close();
  await rm(profile, { recursive: true, force: true });
  return [
    `installable (Chromium's Page.getInstallabilityErrors): ${errors.length === 0 ? 'yes, no errors' : `no: ${errors.join('; ')}`}`,
    `manifest (Page.getAppManifest): ${new URL(manifest.url).pathname}, ${manifest.errors.length} parse errors, ` +
      `name «${parsed.name ?? ''}», display ${parsed.display ?? '?'}, ${parsed.icons?.length ?? 0} icons`,
    `service worker: scope ${new URL(scope).pathname}, controls the page after one visit, ${shell} responses saved`,
    `offline: ${new URL(url).pathname} reopened with the network off in ${Math.round(offlineMs)} ms ` +
      `(instruction and the saved-copy notice shown); back online, current again in ${Math.round(refreshedMs)} ms ` +
      `(the page ${onlineEvent ? 'had' : 'had no'} \`online\` event; without one the 10 s retry reads it)`,
  ];
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
    console.log('\nweb client, installable and offline (Chromium over CDP, public instruction page)');
    console.log((await installability(`${portal.url}/short-instruction/1`)).join('\n'));
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await portal.stop();
  }
}

await main();
