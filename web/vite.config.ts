/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
    // `npm run dev` serves the client alone; grpc-web calls (/portal.<pkg>.<Service>/…)
    // and REST go to a running `portal` (make run), as they do same-origin in production.
    proxy: {
      '^/(portal\\.|api/)': process.env.PORTAL_DEV_BACKEND ?? 'http://127.0.0.1:8080',
    },
  },
  build: {
    rolldownOptions: {
      output: {
        // Libraries change less often than the portal: separate files stay cached across releases.
        codeSplitting: {
          groups: [
            { name: 'mui', test: /node_modules[\\/](@mui|@emotion)[\\/]/ },
            { name: 'vendor', test: /node_modules[\\/]/ },
          ],
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
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: ['src/testing/setup.ts'],
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
