// The mails the test SMTP sink of global setup took (PORTAL_E2E_MAIL_DIR), as a reader sees them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect } from '@playwright/test';

/** What a reader sees of a message: each MIME part's body decoded. */
function readable(eml: string): string {
  return eml
    .split(/\r\n--[^\r\n]*\r\n/)
    .map((part) => {
      const [head = '', ...rest] = part.split('\r\n\r\n');
      const body = rest.join('\r\n\r\n');
      const encoding = /content-transfer-encoding:\s*(\S+)/i.exec(head)?.[1]?.toLowerCase();
      if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
      if (encoding === 'quoted-printable') {
        const bytes = body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        return Buffer.from(bytes, 'latin1').toString('utf8');
      }
      return body;
    })
    .join('\n');
}

/** The text of the message the sink took for `address`, once it arrives. */
export async function mailTo(address: string): Promise<string> {
  const dir = process.env.PORTAL_E2E_MAIL_DIR ?? '';
  let found: string | undefined;
  await expect
    .poll(() => {
      found = readdirSync(dir)
        .map((name) => readFileSync(join(dir, name), 'utf8'))
        .find((eml) => eml.startsWith(`X-Sink-To: ${address}\r\n`));
      return found !== undefined;
    })
    .toBe(true);
  return readable(found ?? '');
}
