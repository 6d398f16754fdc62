import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { startPortal } from '../support/portal-server';

// The portal serves the built client: test what ships, not the dev server.
export default async function globalSetup() {
  const index = resolve(import.meta.dirname, '../../dist/index.html');
  if (!existsSync(index)) throw new Error(`${index} is missing: run npm run build first`);

  const portal = await startPortal();
  // Workers start after this and inherit the environment (see ./test.ts).
  process.env.PORTAL_E2E_URL = portal.url;
  process.env.PORTAL_E2E_DATA_DIR = portal.dataDir;
  return portal.stop;
}
