/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_MAIN_SITE_URL?: string;
  readonly VITE_TASK_SITE_URL?: string;
  readonly VITE_PHONE_DIRECTORY_URL?: string;
  readonly VITE_MEDICINES_REGISTER_URL?: string;
  readonly VITE_CLINICAL_GUIDELINES_URL?: string;
}
