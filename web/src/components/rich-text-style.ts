import type { Theme } from '@mui/material';
import type { SystemStyleObject } from '@mui/system';

export type HeadingLabels = { normal: string; levels: readonly string[] };

/**
 * How both Quill editors (an article's content, an equipment instruction) look: put on the
 * element that holds the editor.
 *
 * - Quill's snow theme names the header levels in English through `::before` content; these
 *   rules name them in Russian, as specific as Quill's own plus the holder's class, so that
 *   they win whichever stylesheet loads last.
 * - The picker is wide enough for 'Обычный текст' on one line.
 * - The toolbar stays on top of a long text as it scrolls: sticky, opaque, above the content.
 */
export function richTextStyle({ normal, levels }: HeadingLabels): SystemStyleObject<Theme> {
  const picker = '& .ql-snow .ql-picker.ql-header';
  return {
    [`${picker} .ql-picker-label::before, ${picker} .ql-picker-item::before`]: { content: `'${normal}'` },
    ...Object.fromEntries(
      levels.map((label, index) => [
        `${picker} .ql-picker-label[data-value="${index + 1}"]::before, ${picker} .ql-picker-item[data-value="${index + 1}"]::before`,
        { content: `'${label}'` },
      ]),
    ),
    [picker]: { width: 170 },
    [`${picker} .ql-picker-label`]: { whiteSpace: 'nowrap', overflow: 'hidden', pr: 3 },
    '& .ql-toolbar': {
      fontFamily: 'inherit',
      position: 'sticky',
      top: 0,
      zIndex: 2,
      bgcolor: 'background.paper',
    },
    '& .ql-container': { fontFamily: 'inherit', fontSize: '1rem' },
  };
}
