import { describe, expect, it } from 'vitest';

import { isAllowedImageSource, isImageType, safeUrl, withoutAutoplay } from './links';

const base = 'https://portal.example/departments';

describe('safeUrl', () => {
  it.each([
    'http://example.org/a',
    'https://example.org/a?b=1',
    'mailto:it@hospital.example',
    'tel:+74951234567',
    'sms:+74951234567',
    '/api/file/download/5',
  ])('keeps %s', (url) => {
    expect(safeUrl(url, base)).toBe(url);
  });

  it.each([
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://example.org/x',
    'http://[bad',
  ])('turns %s into about:blank', (url) => {
    expect(safeUrl(url, base)).toBe('about:blank');
  });
});

describe('withoutAutoplay', () => {
  it('drops autoplay parameters and keeps the rest', () => {
    expect(withoutAutoplay('/api/file/download/7?autoplay=1&t=10#x')).toBe('/api/file/download/7?t=10#x');
    expect(withoutAutoplay('https://v.example/e/1?AutoPlay=true')).toBe('https://v.example/e/1');
    expect(withoutAutoplay('https://v.example/e/1?auto_play')).toBe('https://v.example/e/1');
    expect(withoutAutoplay('/api/file/download/7')).toBe('/api/file/download/7');
  });
});

describe('images', () => {
  it('takes PNG and JPEG only', () => {
    expect(isImageType('image/png')).toBe(true);
    expect(isImageType('image/jpeg')).toBe(true);
    expect(isImageType('image/gif')).toBe(false);
    expect(isImageType('image/svg+xml')).toBe(false);
  });

  it('keeps PNG/JPEG data and web addresses, not other data or scripts', () => {
    expect(isAllowedImageSource('data:image/png;base64,AAAA', base)).toBe(true);
    expect(isAllowedImageSource('data:image/jpeg;base64,AAAA', base)).toBe(true);
    expect(isAllowedImageSource('data:image/svg+xml;base64,AAAA', base)).toBe(false);
    expect(isAllowedImageSource('data:image/gif;base64,AAAA', base)).toBe(false);
    expect(isAllowedImageSource('https://example.org/a.png', base)).toBe(true);
    expect(isAllowedImageSource('javascript:alert(1)', base)).toBe(false);
    expect(isAllowedImageSource('mailto:a@b', base)).toBe(false);
  });
});
