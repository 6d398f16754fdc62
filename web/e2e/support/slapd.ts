// A real OpenLDAP server (Debian's slapd) for the directory sign-in spec (issue 39.1): its
// own temporary directory, a CA made with openssl, LDAPS on a free port, a tiny schema of
// Active Directory's userAccountControl and sAMAccountName. The Rust tests' twin is
// services/auth/tests/api/slapd.rs.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from './portal-server';

export const SLAPD = '/usr/sbin/slapd';
const BASE = 'dc=hospital,dc=local';
export const PEOPLE = `ou=people,${BASE}`;
export const SERVICE_DN = `cn=portal,ou=services,${BASE}`;
export const SERVICE_PASSWORD = 'bind-secret-2026';

const AD_SCHEMA = `attributetype ( 1.2.840.113556.1.4.8 NAME 'userAccountControl' EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.2.840.113556.1.4.221 NAME 'sAMAccountName' EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
objectclass ( 1.3.6.1.4.1.4203.666.11.39.1 NAME 'portalTestAdUser' SUP top AUXILIARY MAY ( userAccountControl $ sAMAccountName ) )
`;

export type DirectoryPerson = {
  login: string;
  password: string;
  employeeNumber: string;
  surname: string;
  name: string;
};
export type Slapd = { url: string; caFile: string; stop: () => Promise<void> };

function config(dir: string): string {
  return `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include ${dir}/ad.schema
pidfile ${dir}/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
TLSCACertificateFile ${dir}/ca.pem
TLSCertificateFile ${dir}/server.pem
TLSCertificateKeyFile ${dir}/server.key
database mdb
maxsize 104857600
suffix "${BASE}"
rootdn "cn=admin,${BASE}"
directory ${dir}/db
access to attrs=userPassword by anonymous auth by * none
access to * by users read by * none
`;
}

function ldif(people: DirectoryPerson[]): string {
  const entries = [
    `dn: ${BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: hospital\no: Hospital`,
    `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ou=services,${BASE}\nobjectClass: organizationalUnit\nou: services`,
    `dn: ${SERVICE_DN}\nobjectClass: person\ncn: portal\nsn: portal\nuserPassword: ${SERVICE_PASSWORD}`,
    ...people.map(
      (p) =>
        `dn: uid=${p.login},${PEOPLE}\nobjectClass: inetOrgPerson\nobjectClass: portalTestAdUser\n` +
        `uid: ${p.login}\nsAMAccountName: ${p.login}\ncn: ${p.login}\n` +
        `sn:: ${Buffer.from(p.surname).toString('base64')}\ngivenName:: ${Buffer.from(p.name).toString('base64')}\n` +
        `employeeNumber: ${p.employeeNumber}\nuserAccountControl: 512\nuserPassword: ${p.password}`,
    ),
  ];
  return `${entries.join('\n\n')}\n`;
}

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** A running slapd holding `people`; `undefined` when slapd is missing and the run allows it. */
export async function startSlapd(people: DirectoryPerson[]): Promise<Slapd | undefined> {
  if (!existsSync(SLAPD)) {
    if (process.env.PORTAL_REQUIRE_E2E === '1') {
      throw new Error(`PORTAL_REQUIRE_E2E=1 but ${SLAPD} is missing (apt-get install slapd ldap-utils)`);
    }
    return undefined;
  }
  const dir = await mkdtemp(join(tmpdir(), 'portal-e2e-slapd-'));
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Portal e2e CA',
  ]);
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  await writeFile(
    join(dir, 'server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ]),
  );
  await writeFile(join(dir, 'ad.schema'), AD_SCHEMA);
  await mkdir(join(dir, 'db'));
  await writeFile(join(dir, 'slapd.conf'), config(dir));
  await writeFile(join(dir, 'data.ldif'), ldif(people));
  execFileSync('/usr/sbin/slapadd', ['-f', join(dir, 'slapd.conf'), '-l', join(dir, 'data.ldif')], {
    stdio: 'ignore',
  });
  const port = await freePort();
  const child: ChildProcess = spawn(
    SLAPD,
    ['-f', join(dir, 'slapd.conf'), '-h', `ldaps://127.0.0.1:${port}/`, '-d', '0'],
    {
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 15_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error('slapd did not listen within 15 s');
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    url: `ldaps://127.0.0.1:${port}`,
    caFile: join(dir, 'ca.pem'),
    stop: async () => {
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
