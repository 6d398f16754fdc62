import { describe, expect, it } from 'vitest';

import { opensInline } from './open-document';

describe('opensInline', () => {
  it('opens what a browser shows in a tab: PDF, pictures, text and video', () => {
    for (const type of [
      'application/pdf',
      'image/png',
      'image/jpeg',
      'text/plain; charset=utf-8',
      'video/mp4',
    ]) {
      expect(opensInline(type)).toBe(true);
    }
  });

  it('saves Office files, archives and anything unknown', () => {
    for (const type of [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/zip',
      'application/octet-stream',
      '',
    ]) {
      expect(opensInline(type)).toBe(false);
    }
  });
});
