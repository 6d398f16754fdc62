// A real OpenID provider for the tests of single sign-on (issue 39.2): the
// OpenID-certified `oidc-provider` package, its development sign-in page (any
// login, any password), with the portal registered as a confidential client.
// The auth service's API tests and the Playwright suite both start it:
//
//   OIDC_PORTAL_URL=http://127.0.0.1:8080 node e2e/support/oidc-provider.mjs
//
// It prints one JSON line, {"issuer": "http://127.0.0.1:PORT"}, once it listens.
// OIDC_PORT picks the port (default: any free one); OIDC_ACCOUNTS (JSON:
// login → claims) the people it knows beyond their login. POST /test/rotate-keys
// makes a new signing key (the old one stays published), as a provider
// rotating its keys does.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';

import Provider from 'oidc-provider';

const portalUrl = (process.env.OIDC_PORTAL_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const clientId = process.env.OIDC_CLIENT_ID ?? 'portal';
const clientSecret = process.env.OIDC_CLIENT_SECRET ?? 'portal-test-secret';
const accounts = JSON.parse(process.env.OIDC_ACCOUNTS ?? '{}');

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };
}

let keys = [signingKey()];
let issuer = '';

function makeProvider() {
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${portalUrl}/api/auth/oidc/callback`],
        post_logout_redirect_uris: [`${portalUrl}/login`],
        backchannel_logout_uri: `${portalUrl}/api/auth/oidc/backchannel-logout`,
        backchannel_logout_session_required: true,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys },
    cookies: { keys: ['a test provider of the portal'] },
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'given_name', 'family_name', 'employee_number', 'groups'],
      email: ['email'],
    },
    // The portal reads who the person is from the ID token, as Keycloak gives it.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // The package refuses to post to loopback addresses (its guard against SSRF), and the
    // portal of the tests is on this machine: its back-channel logout goes there plainly.
    fetch: (url, options) => {
      delete options.dispatcher;
      return globalThis.fetch(url, options);
    },
    features: {
      devInteractions: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    findAccount: (_ctx, login) => ({
      accountId: login,
      claims: () => ({ sub: login, preferred_username: login, ...(accounts[login] ?? {}) }),
    }),
    // The portal is the hospital's own application: no consent page.
    loadExistingGrant: async (ctx) => {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  });
  return provider;
}

let provider;
const server = http.createServer((request, response) => {
  if (request.method === 'POST' && request.url === '/test/rotate-keys') {
    keys = [signingKey(), ...keys];
    provider = makeProvider();
    response.writeHead(204).end();
    return;
  }
  provider.callback()(request, response);
});

server.listen(Number(process.env.OIDC_PORT ?? 0), '127.0.0.1', () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  provider = makeProvider();
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
