import { LinearProgress } from '@mui/material';
import { keyframes } from '@mui/material/styles';

import { strings } from '@/lib/strings';

// A quick load shows nothing; only one that takes a moment shows the bar.
const appear = keyframes`from { opacity: 0; } to { opacity: 1; }`;

/**
 * Shown while the code of the next page loads. Fixed over the top edge of the window, so
 * it moves nothing on the page; the page a person came from stays until the next is ready.
 */
export function LoadingBar() {
  return (
    <LinearProgress
      aria-label={strings.common.loading}
      sx={{
        position: 'fixed',
        top: 0,
        left: 0,
        right: 0,
        zIndex: 'tooltip',
        opacity: 0,
        animation: `${appear} 0.1s linear 0.2s forwards`,
      }}
    />
  );
}
