// A tiny SMTP server for the browser tests: it speaks a real SMTP conversation with the
// portal's relay client (PORTAL_SMTP_URL) and writes each message it takes to a file in
// `dir`, for a test to read a mailed link (issue 39.3). No TLS, no authentication.
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';

export type SmtpSink = { url: string; stop: () => Promise<void> };

function converse(socket: Socket, dir: string, next: () => number) {
  let buffer = '';
  let inData = false;
  let data = '';
  let recipients: string[] = [];
  const reply = (line: string) => socket.write(`${line}\r\n`);
  reply('220 e2e-sink ESMTP');
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (inData) {
        if (line === '.') {
          inData = false;
          const file = join(dir, `${String(next()).padStart(4, '0')}.eml`);
          writeFileSync(file, `X-Sink-To: ${recipients.join(', ')}\r\n${data}`);
          data = '';
          recipients = [];
          reply('250 2.0.0 taken');
        } else {
          data += `${line.startsWith('..') ? line.slice(1) : line}\r\n`;
        }
        continue;
      }
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') reply('250-e2e-sink\r\n250 8BITMIME');
      else if (verb === 'HELO') reply('250 e2e-sink');
      else if (verb === 'MAIL') reply('250 2.1.0 ok');
      else if (verb === 'RCPT') {
        recipients.push(line.replace(/^RCPT TO:\s*<?([^>]*)>?.*$/i, '$1'));
        reply('250 2.1.5 ok');
      } else if (verb === 'DATA') {
        inData = true;
        reply('354 end with <CRLF>.<CRLF>');
      } else if (verb === 'QUIT') {
        reply('221 2.0.0 bye');
        socket.end();
      } else if (verb === 'RSET' || verb === 'NOOP') reply('250 2.0.0 ok');
      else reply('502 5.5.2 not implemented');
    }
  });
  socket.on('error', () => socket.destroy());
}

/** Listens on a free loopback port; every message goes to a file in `dir`. */
export async function startSmtpSink(dir: string): Promise<SmtpSink> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    converse(socket, dir, () => ++count);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('the SMTP sink has no port');
  const stop = () =>
    new Promise<void>((done) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => done());
    });
  return { url: `smtp://127.0.0.1:${String(address.port)}`, stop };
}
