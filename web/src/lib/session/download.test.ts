import { describe, expect, it } from 'vitest';

import { attachmentName } from './download';

describe('attachmentName', () => {
  it('prefers the UTF-8 name of filename*', () => {
    expect(
      attachmentName(
        `attachment; filename="statistics.csv"; filename*=UTF-8''%D0%A1%D1%82%D0%B0%D1%82%D0%B8%D1%81%D1%82%D0%B8%D0%BA%D0%B0.csv`,
      ),
    ).toBe('Статистика.csv');
  });

  it('falls back to the plain name, and to nothing', () => {
    expect(attachmentName('attachment; filename="statistics.csv"')).toBe('statistics.csv');
    expect(attachmentName(`attachment; filename="a.csv"; filename*=UTF-8''%E0%A4`)).toBe('a.csv');
    expect(attachmentName(null)).toBeUndefined();
  });
});
