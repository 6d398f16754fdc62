import type { OptionsObject } from 'notistack';

/** One toast as notistack takes it. */
export type Toast = { message: string; options: OptionsObject };

// notistack (8 KB compressed) loads with the first toast, not with every page: the sign-in
// page and the public instruction page rarely show one. Until the app's toast host has it
// mounted (`attachToasts`), toasts wait here, and the host is told that one is wanted.
let enqueue: ((toast: Toast) => void) | undefined;
let waiting: Toast[] = [];
const listeners = new Set<() => void>();

function show(toast: Toast) {
  if (enqueue) {
    enqueue(toast);
    return;
  }
  waiting.push(toast);
  listeners.forEach((listener) => listener());
}

/** Whether a toast has been asked for, so that the host must load notistack. */
export const toastsWanted = () => enqueue !== undefined || waiting.length > 0;

export function subscribeToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The mounted host shows what waited, then every toast at once; the returned function detaches it. */
export function attachToasts(host: (toast: Toast) => void): () => void {
  enqueue = host;
  const shown = waiting;
  waiting = [];
  shown.forEach(host);
  return () => {
    if (enqueue === host) enqueue = undefined;
  };
}

// Spec §9: errors top centre for 6 s, successes bottom right for 3 s. notistack 3 has no
// click-away handler, so a click elsewhere on the page never closes a toast (spec §4). One
// failure told by several loads of a page (its breadcrumb and its list) shows once.
export const notify = {
  error: (message: string) =>
    show({
      message,
      options: {
        variant: 'error',
        preventDuplicate: true,
        autoHideDuration: 6000,
        anchorOrigin: { vertical: 'top', horizontal: 'center' },
      },
    }),
  success: (message: string) =>
    show({
      message,
      options: {
        variant: 'success',
        autoHideDuration: 3000,
        anchorOrigin: { vertical: 'bottom', horizontal: 'right' },
      },
    }),
};
