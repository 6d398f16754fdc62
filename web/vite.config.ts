/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

import { firstLoadBudget } from './tooling/first-load-budget.ts';
import { serviceWorker } from './tooling/service-worker.ts';

const kib = 1024;
/** The route module of the QR code's public page: budgeted, and kept offline by the service worker. */
const publicPage = ['src/features/equipment/components/public-instruction-page.tsx'];

export default defineConfig({
  plugins: [
    react(),
    // A .br and a .gz beside every text file; the gateway sends the one a browser accepts.
    compression({ algorithms: ['brotliCompress', 'gzip'], exclude: [/\.vite[\\/]/] }),
    // Issue 10's targets: a phone scanning a QR code, a ward PC opening the sign-in page. Each
    // page is a lazy route over the shared entry (router, theme, guards); toasts load with the
    // first one. The public page is well under issue 10's 150 KB (136 KB in Nov 2026): its
    // ceiling keeps most of that gap, so that a shared import slipping in is caught.
    firstLoadBudget([
      {
        page: '/login',
        routeModules: ['src/features/auth/components/login-page.tsx'],
        maxBrotliBytes: 150 * kib,
      },
      {
        page: '/short-instruction/:environmentId',
        routeModules: publicPage,
        maxBrotliBytes: 142 * kib,
      },
    ]),
    // /sw.js: keeps the public page readable without a network once it has been opened.
    serviceWorker({ source: 'src/service-worker/sw.ts', routeModules: publicPage }),
  ],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    // `npm run dev` serves the client alone; grpc-web calls (/portal.<pkg>.<Service>/…)
    // and REST go to a running `portal` (make run), as they do same-origin in production.
    proxy: {
      '^/(portal\\.|api/)': process.env.PORTAL_DEV_BACKEND ?? 'http://127.0.0.1:8080',
    },
  },
  build: {
    // Which file each route needs: read by the first-load budget and `make bench`.
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // React and the router are on every page and change less often than the portal:
          // a file of their own stays cached across releases. Everything else is split by
          // route (each route's `lazy`), so a page loads only the code it shows.
          groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ }],
        },
      },
    },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}', 'tooling/**/*.test.ts'],
          setupFiles: ['src/testing/setup.ts'],
          // A test that renders a lazy route imports its chunk under jsdom, which took over
          // Vitest's default 5 s on a loaded 2-core machine; speed is the benches' business.
          testTimeout: 30_000,
        },
      },
      {
        // Talks grpc-web to a real `portal` process: Node, not a DOM.
        extends: true,
        test: {
          name: 'grpc',
          environment: 'node',
          include: ['e2e/grpc/**/*.test.ts'],
          globalSetup: ['e2e/grpc/global-setup.ts'],
        },
      },
    ],
  },
});
