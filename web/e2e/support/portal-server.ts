// Starts the real `portal` binary (target `all`) on a free loopback port with a fresh data
// directory, for the browser tests and the grpc-web tests alike.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const webDir = resolve(import.meta.dirname, '../..');
const readyTimeoutMs = 60_000;

export const adminLogin = 'admin';
export const adminPassword = 'e2e-admin-password';

/** `dataDir` holds the services' SQLite databases (`<service>.db`): a test may date rows in the past there. */
export type PortalServer = { url: string; dataDir: string; stop: () => Promise<void> };

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') done(address.port);
        else fail(new Error('no port assigned'));
      });
    });
  });
}

async function isReady(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false; // not listening yet
  }
}

/** `env`: more settings of the portal's, e.g. PORTAL_SMTP_URL of a test's SMTP sink. */
export async function startPortal(env: Record<string, string> = {}): Promise<PortalServer> {
  const binary = resolve(process.env.PORTAL_BIN ?? join(webDir, '../target/debug/portal'));
  if (!existsSync(binary)) {
    throw new Error(`portal binary not found at ${binary}: build it (cargo build) or set PORTAL_BIN`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'portal-e2e-'));
  // A test may choose the address itself (the OpenID provider is told it before the portal starts).
  const address = env.PORTAL_HTTP_ADDR ?? `127.0.0.1:${await freePort()}`;
  const url = `http://${address}`;

  const child = spawn(binary, [], {
    env: {
      ...process.env,
      PORTAL_DATA_DIR: dataDir,
      PORTAL_HTTP_ADDR: address,
      PORTAL_WEB_DIR: join(webDir, 'dist'),
      PORTAL_ADMIN_LOGIN: adminLogin,
      PORTAL_ADMIN_PASSWORD: adminPassword,
      PORTAL_SEED_DEMO: 'true',
      // QR codes and file links are absolute: they must point at this server.
      PORTAL_PUBLIC_URL: url,
      PORTAL_LOG: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let failure: string | undefined;
  child.once('error', (error) => (failure = error.message));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const running = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;

  const stop = async () => {
    if (running()) {
      child.kill('SIGTERM');
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(forced);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + readyTimeoutMs;
  while (!(await isReady(url))) {
    if (failure !== undefined || !running()) {
      await stop();
      throw new Error(
        `portal stopped before it was ready: ${failure ?? `exit ${String(child.exitCode ?? child.signalCode)}`}`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`portal at ${url} was not ready within ${readyTimeoutMs / 1000} s`);
    }
    await new Promise((wait) => setTimeout(wait, 250));
  }
  return { url, dataDir, stop };
}
