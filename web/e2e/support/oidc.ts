// A real OpenID provider for the single sign-on tests (issue 39.2): the `oidc-provider` package
// run by Node from ./oidc-provider.mjs, as the auth service's API tests run it too.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CLIENT_ID = 'portal';
export const CLIENT_SECRET = 'portal-test-secret';

export type OidcProvider = { issuer: string; stop: () => Promise<void> };

/** A provider whose client is the portal at `portalUrl`; `accounts`: login → its claims. */
export async function startOidcProvider(
  portalUrl: string,
  accounts: Record<string, Record<string, unknown>>,
): Promise<OidcProvider> {
  const child: ChildProcess = spawn(process.execPath, [resolve(import.meta.dirname, 'oidc-provider.mjs')], {
    env: {
      ...process.env,
      OIDC_PORTAL_URL: portalUrl,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_ACCOUNTS: JSON.stringify(accounts),
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (!child.stdout) throw new Error('the OpenID provider has no output to read');
  const lines = createInterface({ input: child.stdout });
  const issuer = await new Promise<string>((done, fail) => {
    child.once('exit', () => fail(new Error('the OpenID provider stopped before it listened')));
    lines.once('line', (line) => done((JSON.parse(line) as { issuer: string }).issuer));
  });
  // Read on, so its later output never finds the pipe full.
  lines.on('line', () => undefined);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    issuer,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
