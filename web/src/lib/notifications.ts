import { enqueueSnackbar } from 'notistack';

// Spec §9: errors top centre for 6 s, successes bottom right for 3 s. notistack 3 has no
// click-away handler, so a click elsewhere on the page never closes a toast (spec §4). One
// failure told by several loads of a page (its breadcrumb and its list) shows once.
export const notify = {
  error: (message: string) =>
    enqueueSnackbar(message, {
      variant: 'error',
      preventDuplicate: true,
      autoHideDuration: 6000,
      anchorOrigin: { vertical: 'top', horizontal: 'center' },
    }),
  success: (message: string) =>
    enqueueSnackbar(message, {
      variant: 'success',
      autoHideDuration: 3000,
      anchorOrigin: { vertical: 'bottom', horizontal: 'right' },
    }),
};
