// Draws the installable app's icons (public/icons, named in public/manifest.webmanifest) from
// the portal's logo, public/favicon.svg, with Debian's Chromium. Run again when the logo changes:
//
//   node scripts/run-ts.mjs scripts/make-icons.ts
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { chromium } from '@playwright/test';

const publicDir = resolve(import.meta.dirname, '../public');
const logo = readFileSync(join(publicDir, 'favicon.svg'));
/** The logo's own background (its rect's fill), which a maskable icon fills to the edges. */
const logoBlue = '#0b5f8a';

const icons = [
  { file: 'icon-192.png', size: 192, background: 'transparent' },
  { file: 'icon-512.png', size: 512, background: 'transparent' },
  // A launcher cuts a maskable icon to its own shape (a circle, a squircle), keeping at least
  // the middle circle of 80%: the logo's cross stays well inside it, its rounded corners are
  // filled with the same blue.
  { file: 'icon-maskable-512.png', size: 512, background: logoBlue },
];

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  for (const { file, size, background } of icons) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const source = `data:image/svg+xml;base64,${logo.toString('base64')}`;
    await page.setContent(
      `<body style="margin:0;background:${background}">` +
        `<img src="${source}" width="${size}" height="${size}" style="display:block"></body>`,
    );
    await page.screenshot({
      path: join(publicDir, 'icons', file),
      omitBackground: background === 'transparent',
    });
    await page.close();
  }
} finally {
  await browser.close();
}
