import type { TestProject } from 'vitest/node';

import { startPortal } from '../support/portal-server';

declare module 'vitest' {
  export interface ProvidedContext {
    portalUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const portal = await startPortal();
  project.provide('portalUrl', portal.url);
  return portal.stop;
}
