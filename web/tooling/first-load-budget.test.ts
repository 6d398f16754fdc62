import { describe, expect, it } from 'vitest';

import { firstLoadFiles, judge, total, weigh, type Manifest } from './first-load-budget';

const manifest: Manifest = {
  'index.html': { file: 'assets/index-a1.js', imports: ['_react-b2.js', '_box-c3.js'] },
  '_react-b2.js': { file: 'assets/react-b2.js' },
  '_box-c3.js': { file: 'assets/box-c3.js', imports: ['_react-b2.js'] },
  'src/features/home/components/home-page.tsx': {
    file: 'assets/home-page-d4.js',
    imports: ['_box-c3.js', '_tiles-e5.js'],
  },
  '_tiles-e5.js': { file: 'assets/tiles-e5.js' },
};

describe('first-load budget', () => {
  it('a page loads the entry with its imports, then its route modules with theirs, each file once', () => {
    expect(firstLoadFiles(manifest, [])).toEqual([
      'assets/index-a1.js',
      'assets/react-b2.js',
      'assets/box-c3.js',
    ]);
    expect(firstLoadFiles(manifest, ['src/features/home/components/home-page.tsx'])).toEqual([
      'assets/index-a1.js',
      'assets/react-b2.js',
      'assets/box-c3.js',
      'assets/home-page-d4.js',
      'assets/tiles-e5.js',
    ]);
  });

  it('a route module missing from the manifest is named', () => {
    expect(() => firstLoadFiles(manifest, ['src/features/auth/login.tsx'])).toThrow(
      'src/features/auth/login.tsx is not in the build manifest',
    );
  });

  it('weighs files compressed as the gateway sends them', () => {
    const weight = total([weigh('const a = 1;\n'.repeat(1000)), weigh('export {}')]);
    expect(weight.files).toBe(2);
    expect(weight.bytes).toBe(13 * 1000 + 9);
    expect(weight.brotliBytes).toBeLessThan(weight.gzipBytes);
    expect(weight.gzipBytes).toBeLessThan(200);
  });

  it('a page over its budget fails with a message that says what to do', () => {
    const budget = { page: '/login', routeModules: [], maxBrotliBytes: 150 * 1024 };
    const weight = { files: 11, bytes: 520_000, gzipBytes: 170_000, brotliBytes: 150 * 1024 };
    expect(judge(budget, weight).error).toBeUndefined();
    expect(judge(budget, weight).line).toBe(
      '/login: first load 11 JS files, 507.8 KB, 150.0 KB br, 166.0 KB gzip (budget 150.0 KB br)',
    );

    const verdict = judge(budget, { ...weight, brotliBytes: 150 * 1024 + 1 });
    expect(verdict.error).toMatch(
      /^\/login needs 150\.0 KB of compressed JavaScript at first load, over its budget/,
    );
    expect(verdict.error).toContain("a route's lazy");
  });
});
