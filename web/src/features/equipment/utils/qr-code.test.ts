import { describe, expect, it } from 'vitest';

import { fileNameWithin } from './qr-code';

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('fileNameWithin', () => {
  it('keeps a short name whole', () => {
    expect(fileNameWithin('QR код для Монитор пациента BeneView T5', '.png')).toBe(
      'QR код для Монитор пациента BeneView T5.png',
    );
  });

  it('cuts a long Cyrillic name to 255 bytes between characters', () => {
    const name = `QR код для ${'Аппарат ультразвуковой диагностический экспертного класса '.repeat(4)}`;
    const fitted = fileNameWithin(name, '.png');
    expect(bytes(fitted)).toBeLessThanOrEqual(255);
    expect(bytes(fitted)).toBeGreaterThan(250);
    expect(fitted.endsWith('.png')).toBe(true);
    expect(fitted).not.toContain('\uFFFD');
    expect(name.startsWith(fitted.slice(0, -'.png'.length))).toBe(true);
  });

  it('does not split a character of four bytes', () => {
    const fitted = fileNameWithin('😀'.repeat(100), '.png');
    expect(bytes(fitted)).toBe(62 * 4 + 4); // a 63rd would need 256
    expect(fitted).toBe(`${'😀'.repeat(62)}.png`);
  });
});
