import { describe, expect, it } from 'vitest';

import { savedAtHeader } from '@/lib/offline-copy';

import {
  handlingOf,
  instructionImages,
  keptModels,
  openedAtHeader,
  publicPageModel,
  savedInstruction,
  toPrune,
  withOpenedAt,
  withSavedAt,
  type RequestFacts,
  type SavedInstruction,
} from './rules';

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

describe('pruning the saved copies', () => {
  const day = 24 * 60 * 60 * 1000;
  const now = Date.UTC(2026, 10, 26, 9, 0);
  const read = (model: number) =>
    `${origin}/api/environment-model/get-public-instruction?environmentModelId=${model}`;
  const image = (id: number) => `${origin}/api/file/download/${id}?key=k${id}`;
  const copy = (model: number, savedDaysAgo: number, openedDaysAgo = savedDaysAgo, images: number[] = []) =>
    ({
      url: read(model),
      savedAt: now - savedDaysAgo * day,
      openedAt: now - openedDaysAgo * day,
      images: images.map(image),
    }) satisfies SavedInstruction;

  it('keeps everything while there are few recent copies and each picture is shown', () => {
    const saved = [copy(1, 0, 0, [10]), copy(2, 89, 1, [10, 11])];
    expect(toPrune(saved, [image(10), image(11)], now)).toEqual([]);
  });

  it('drops copies saved over 90 days ago, even if opened offline since, with their pictures', () => {
    const saved = [copy(1, 91, 0, [10, 12]), copy(2, 5, 5, [12])];
    expect(toPrune(saved, [image(10), image(12)], now)).toEqual([read(1), image(10)]);
  });

  it(`keeps the ${keptModels} most recently opened models`, () => {
    // Model m was opened m days ago; model 40 was saved long ago but opened from the copy today.
    const saved = Array.from({ length: 35 }, (_, i) => copy(i + 1, i + 1, i + 1, [100 + i + 1]));
    saved.push(copy(40, 60, 0, [140]));
    const dropped = toPrune(saved, [...saved.flatMap((entry) => entry.images)], now);
    expect(dropped).toEqual([
      ...[30, 31, 32, 33, 34, 35].map(read),
      ...[130, 131, 132, 133, 134, 135].map(image),
    ]);
  });

  it('drops pictures no kept instruction shows any more', () => {
    expect(toPrune([copy(1, 0, 0, [10])], [image(10), image(11)], now)).toEqual([image(11)]);
    expect(toPrune([], [image(11)], now)).toEqual([image(11)]);
  });

  it('reads a saved copy: when saved and opened, and its pictures; an unreadable one counts as old', async () => {
    const html = `<p><img src="${image(10)}"></p>`;
    const answer = new Response(JSON.stringify({ success: true, data: { shortInstruction: html } }));
    const saved = await withSavedAt(answer, new Date(now - 3 * day));
    const opened = await withOpenedAt(saved, new Date(now - day));
    expect(opened.headers.get(openedAtHeader)).toBe(new Date(now - day).toISOString());
    expect(await savedInstruction(read(1), opened.clone(), origin)).toEqual({
      url: read(1),
      savedAt: now - 3 * day,
      openedAt: now - day,
      images: [image(10)],
    });
    expect(await savedInstruction(read(1), saved, origin)).toMatchObject({ openedAt: now - 3 * day });
    const unknown = await savedInstruction(read(2), new Response('not json'), origin);
    expect(unknown).toEqual({ url: read(2), savedAt: 0, openedAt: 0, images: [] });
    expect(toPrune([unknown], [], now)).toEqual([read(2)]);
  });
});
