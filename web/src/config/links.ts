// Sites of the organisation outside the portal. The client is static files served by the
// gateway, so these are fixed at build time (VITE_* variables), with the defaults below.
export const externalLinks = {
  mainSite: import.meta.env.VITE_MAIN_SITE_URL ?? 'https://example.org/',
  taskSite: import.meta.env.VITE_TASK_SITE_URL ?? 'https://tasks.example.org/',
  // The organisation's phone list, a file on its internal file host.
  phoneDirectory: import.meta.env.VITE_PHONE_DIRECTORY_URL ?? 'https://files.example.org/phone-directory.pdf',
  // Government sites: the state register of medicines and the Ministry of Health's guidelines.
  medicinesRegister: import.meta.env.VITE_MEDICINES_REGISTER_URL ?? 'https://grls.rosminzdrav.ru/',
  clinicalGuidelines: import.meta.env.VITE_CLINICAL_GUIDELINES_URL ?? 'https://cr.minzdrav.gov.ru/',
} as const;
