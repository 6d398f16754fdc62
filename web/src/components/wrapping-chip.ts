import type { SxProps, Theme } from '@mui/material';

/**
 * A chip whose label wraps onto more lines instead of ending in "…": position and
 * department titles are long ("Медицинская сестра-анестезист"), and a phone is narrow.
 */
export const wrappingChip: SxProps<Theme> = {
  height: 'auto',
  minHeight: 24,
  py: 0.25,
  '& .MuiChip-label': { whiteSpace: 'normal', overflowWrap: 'anywhere' },
};
