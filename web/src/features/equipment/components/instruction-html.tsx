import { Box, type Theme } from '@mui/material';
import type { SystemStyleObject } from '@mui/system';
import { useMemo } from 'react';

import { withVideoPlayers } from '../utils/video-players';

// The classes Quill writes into the HTML it makes (alignment, embedded video), styled here
// so that the instruction reads the same outside the editor without Quill's own CSS.
const quillContent: SystemStyleObject<Theme> = {
  overflowWrap: 'anywhere',
  '& img': { maxWidth: '100%', height: 'auto' },
  '& iframe, & video': {
    display: 'block',
    width: '100%',
    maxWidth: '100%',
    aspectRatio: '16 / 9',
    height: 'auto',
    border: 0,
    bgcolor: 'common.black',
  },
  '& .ql-align-center': { textAlign: 'center' },
  '& .ql-align-right': { textAlign: 'right' },
  '& .ql-align-justify': { textAlign: 'justify' },
  '& h1, & h2, & h3': { lineHeight: 1.25, mt: 2, mb: 1 },
  '& p': { my: 1 },
};

/**
 * A short instruction as HTML. The wiki service sanitises it before storing (DESIGN §8:
 * allowed tags, link and media protocols, frames only for the portal's own videos), so it
 * is shown as it comes, its own videos as players (the editor keeps Quill's frames).
 */
export function InstructionHtml({ html, sx }: { html: string; sx?: SystemStyleObject<Theme> }) {
  const shown = useMemo(() => withVideoPlayers(html), [html]);
  return (
    <Box
      className="instruction"
      sx={{ ...quillContent, ...sx }}
      dangerouslySetInnerHTML={{ __html: shown }}
    />
  );
}
