// Sites of the organisation outside the portal. The client is static files served by the
// gateway, so these are fixed at build time (VITE_* variables), with the defaults below.
export const externalLinks = {
  mainSite: import.meta.env.VITE_MAIN_SITE_URL ?? 'https://example.org/',
  taskSite: import.meta.env.VITE_TASK_SITE_URL ?? 'https://tasks.example.org/',
} as const;
