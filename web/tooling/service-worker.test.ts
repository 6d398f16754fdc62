import { describe, expect, it } from 'vitest';

import type { Manifest } from './first-load-budget';
import { shellFiles } from './service-worker';

const manifest: Manifest = {
  'index.html': { file: 'assets/index-a1.js', imports: ['_react-b2.js'], css: ['assets/index-f6.css'] },
  '_react-b2.js': { file: 'assets/react-b2.js' },
  'src/features/equipment/components/public-instruction-page.tsx': {
    file: 'assets/public-instruction-page-d4.js',
    imports: ['_react-b2.js', '_alert-e5.js'],
  },
  '_alert-e5.js': { file: 'assets/alert-e5.js', css: ['assets/alert-g7.css'] },
  'src/features/admin/admin-page.tsx': { file: 'assets/admin-page-h8.js' },
};
const publicPage = ['src/features/equipment/components/public-instruction-page.tsx'];

describe('the public page shell the service worker keeps', () => {
  it('is index.html, its icon, and the scripts and styles of the entry and the public route only', () => {
    expect(shellFiles(manifest, publicPage).files).toEqual([
      '/index.html',
      '/favicon.svg',
      '/assets/index-a1.js',
      '/assets/react-b2.js',
      '/assets/public-instruction-page-d4.js',
      '/assets/alert-e5.js',
      '/assets/index-f6.css',
      '/assets/alert-g7.css',
    ]);
  });

  it('has a version that changes with any file of it', () => {
    const { version } = shellFiles(manifest, publicPage);
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    const rebuilt: Manifest = { ...manifest, '_react-b2.js': { file: 'assets/react-c9.js' } };
    expect(shellFiles(rebuilt, publicPage).version).not.toBe(version);
  });
});
