import { describe, expect, it } from 'vitest';

import { savedAtHeader } from '@/lib/offline-copy';

import { handlingOf, instructionImages, publicPageModel, withSavedAt, type RequestFacts } from './rules';

const origin = 'https://portal.hospital.local';
const shell = new Set(['/index.html', '/assets/index-a1.js', '/assets/public-instruction-page-b2.js']);
const publicPage = `${origin}/short-instruction/5`;

const request = (facts: Partial<RequestFacts> & { url: string }): RequestFacts => ({
  method: 'GET',
  mode: 'cors',
  destination: '',
  referrer: '',
  ...facts,
});

describe('what the service worker answers for', () => {
  it('opening the public page: only the QR code target, not the model page of the same name', () => {
    expect(handlingOf(request({ url: publicPage, mode: 'navigate' }), origin, shell)).toBe('public-page');
    expect(handlingOf(request({ url: `${publicPage}/`, mode: 'navigate' }), origin, shell)).toBe(
      'public-page',
    );
    for (const path of [
      '/home',
      '/login',
      '/short-instruction/abc',
      '/departments/1/environment/5/short-instruction',
    ]) {
      expect(
        handlingOf(request({ url: `${origin}${path}`, mode: 'navigate' }), origin, shell),
      ).toBeUndefined();
    }
  });

  it('the public instruction read and the public shell files', () => {
    const read = `${origin}/api/environment-model/get-public-instruction?environmentModelId=5`;
    expect(handlingOf(request({ url: read, referrer: publicPage }), origin, shell)).toBe('instruction');
    expect(
      handlingOf(request({ url: `${origin}/assets/index-a1.js`, destination: 'script' }), origin, shell),
    ).toBe('shell-file');
  });

  it('leaves signed-in API calls, grpc-web, uploads and other files to the browser, kept nowhere', () => {
    const untouched: RequestFacts[] = [
      // Authenticated REST reads, even from the public page (a signed-in phone reads its clearance).
      request({
        url: `${origin}/api/environment-model/get-clearance?environmentModelId=5`,
        referrer: publicPage,
      }),
      request({ url: `${origin}/api/auth/refresh`, method: 'POST' }),
      request({ url: `${origin}/api/education/get-my-tests` }),
      // grpc-web: POSTs, unary or streamed.
      request({ url: `${origin}/portal.wiki.v1.WikiService/GetEnvironmentModel`, method: 'POST' }),
      request({ url: `${origin}/api/file/save`, method: 'POST' }),
      request({ url: `${origin}/api/file/download/7?key=0123`, destination: 'document' }),
      request({ url: `${origin}/assets/admin-page-c3.js`, destination: 'script' }),
      // A picture on a signed-in page, and one from another site.
      request({
        url: `${origin}/api/file/download/8?key=4567`,
        destination: 'image',
        referrer: `${origin}/home`,
      }),
      request({ url: 'https://other.example/x.png', destination: 'image', referrer: publicPage }),
      request({
        url: `${origin}/api/environment-model/get-public-instruction?environmentModelId=5`,
        method: 'HEAD',
      }),
    ];
    for (const facts of untouched) expect(handlingOf(facts, origin, shell), facts.url).toBeUndefined();
  });

  it("a picture the public page shows is the instruction's", () => {
    const picture = request({
      url: `${origin}/api/file/download/8?key=4567`,
      destination: 'image',
      referrer: publicPage,
    });
    expect(handlingOf(picture, origin, shell)).toBe('instruction-image');
  });

  it('reads the model of a public page address', () => {
    expect(publicPageModel(`${origin}/short-instruction/42`)).toBe(42n);
    expect(publicPageModel(`${origin}/short-instruction/0`)).toBeUndefined();
    expect(publicPageModel(`${origin}/home`)).toBeUndefined();
  });
});

describe('the pictures saved with an instruction', () => {
  it("are the portal's own, in the HTML the wiki's cleaner writes, each once", () => {
    const html =
      '<p><img src="data:image/png;base64,iVBORw0KGgo="></p>' +
      `<p><img alt="Панель" src="${origin}/api/file/download/8?key=45&amp;v=2"></p>` +
      '<p><img src="https://other.example/x.png"></p>' +
      `<p><IMG width="100" src="${origin}/api/file/download/8?key=45&amp;v=2"></p>` +
      '<video src="/api/file/download/9?key=1"></video><p>src="/not-a-picture.png"</p>';
    expect(instructionImages(html, origin)).toEqual([`${origin}/api/file/download/8?key=45&v=2`]);
  });
});

describe('a saved answer', () => {
  it('is the same answer, marked with when it was saved', async () => {
    const answer = new Response('{"success":true}', {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'br', 'Content-Length': '12' },
    });
    const saved = await withSavedAt(answer, new Date(Date.UTC(2026, 10, 3, 11, 5)));
    expect(saved.status).toBe(200);
    expect(saved.headers.get('content-type')).toBe('application/json');
    expect(saved.headers.has('content-encoding')).toBe(false);
    expect(saved.headers.has('content-length')).toBe(false);
    expect(saved.headers.get(savedAtHeader)).toBe('2026-11-03T11:05:00.000Z');
    expect(await saved.text()).toBe('{"success":true}');
  });
});
