import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startPortal } from '../support/portal-server';
import { startSmtpSink } from '../support/smtp-sink';

// The portal serves the built client: test what ships, not the dev server.
export default async function globalSetup() {
  const index = resolve(import.meta.dirname, '../../dist/index.html');
  if (!existsSync(index)) throw new Error(`${index} is missing: run npm run build first`);

  // The portal's mail (digests, password reset links) lands in files a test reads.
  const mailDir = await mkdtemp(join(tmpdir(), 'portal-e2e-mail-'));
  const sink = await startSmtpSink(mailDir);
  const portal = await startPortal({
    PORTAL_SMTP_URL: sink.url,
    PORTAL_SMTP_FROM: 'portal@hospital.example',
  });
  // Workers start after this and inherit the environment (see ./test.ts).
  process.env.PORTAL_E2E_URL = portal.url;
  process.env.PORTAL_E2E_DATA_DIR = portal.dataDir;
  process.env.PORTAL_E2E_MAIL_DIR = mailDir;
  return async () => {
    await portal.stop();
    await sink.stop();
    await rm(mailDir, { recursive: true, force: true });
  };
}
