import { editorStrings } from '@/lib/editor-strings';

const labels = editorStrings.toolbar;

/** Spec §5's toolbar of both Quill editors: headers 1-3, bold, left/centre/right, image, video, clear formatting. */
export const richTextToolbar = [
  [{ header: [1, 2, 3, false] }],
  ['bold'],
  [{ align: '' }, { align: 'center' }, { align: 'right' }],
  ['image', 'video'],
  ['clean'],
];

const byValue = (names: Readonly<Record<string, string>>) => (control: Element) =>
  names[control.getAttribute('value') ?? control.getAttribute('data-value') ?? ''];

// Quill names its controls by format in English ('bold', 'align: center'); each gets its
// Russian name instead, as its accessible name and as the tooltip on hover.
const names: [string, (control: Element) => string | undefined][] = [
  ['.ql-header .ql-picker-label', () => labels.header],
  ['.ql-header .ql-picker-item', byValue(labels.headerLevels)],
  ['button.ql-bold', () => labels.bold],
  ['button.ql-align', byValue(labels.align)],
  ['button.ql-image', () => labels.image],
  ['button.ql-video', () => labels.video],
  ['button.ql-clean', () => labels.clean],
];

/** Names every control of a Quill toolbar in Russian (`aria-label` and `title`). */
export function nameToolbarControls(toolbar: ParentNode | null | undefined) {
  for (const [selector, name] of names) {
    toolbar?.querySelectorAll(selector).forEach((control) => {
      const label = name(control);
      if (!label) return;
      control.setAttribute('aria-label', label);
      control.setAttribute('title', label);
    });
  }
}
