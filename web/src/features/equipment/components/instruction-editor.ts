import Quill from 'quill';
import type { Range } from 'quill';
import Link from 'quill/formats/link';
import Video from 'quill/formats/video';
import 'quill/dist/quill.snow.css';

import { nameToolbarControls, richTextToolbar } from '@/components/rich-text-toolbar';
import { equipmentStrings } from '@/lib/equipment-strings';

import { imageTypes, isAllowedImageSource, isImageType, safeUrl, withoutAutoplay } from '../utils/links';

// Spec §5's link rules, stated here rather than trusted to Quill's defaults: links and
// embedded videos keep only http, https, mailto, tel and sms; a video loses autoplay.
class SafeLink extends Link {
  static override sanitize(url: string) {
    return safeUrl(url);
  }
}

class SafeVideo extends Video {
  static override sanitize(url: string) {
    return withoutAutoplay(safeUrl(url));
  }
}

Quill.register({ 'formats/link': SafeLink, 'formats/video': SafeVideo }, true);

export type EditorEvents = {
  /** A file was picked for the video button, or none (`undefined`). */
  onVideo: (file: File | undefined, insert: (url: string) => void) => void;
  /** A picked image was not PNG or JPEG. */
  onRejectedImage: () => void;
};

function pickFile(accept: string, picked: (file: File | undefined) => void) {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = accept;
  input.addEventListener('change', () => picked(input.files?.[0]));
  input.addEventListener('cancel', () => picked(undefined));
  input.click();
}

/** Quill in `host` with the portal's toolbar and rules; `readOnly` shows it without a toolbar. */
export function createEditor(
  host: HTMLElement,
  html: string,
  readOnly: boolean,
  events: EditorEvents,
): Quill {
  const quill = new Quill(host, {
    theme: 'snow',
    readOnly,
    placeholder: equipmentStrings.instruction.placeholder,
    modules: {
      toolbar: readOnly
        ? false
        : {
            container: richTextToolbar,
            handlers: {
              image: () => {
                const range = quill.getSelection(true);
                pickFile(imageTypes.join(','), (file) => {
                  if (!file) return;
                  if (!isImageType(file.type)) {
                    events.onRejectedImage();
                    return;
                  }
                  const reader = new FileReader();
                  reader.onload = () => {
                    if (typeof reader.result !== 'string') return;
                    quill.insertEmbed(range.index, 'image', reader.result, 'user');
                    quill.setSelection(range.index + 1, 0);
                  };
                  reader.readAsDataURL(file);
                });
              },
              video: () => {
                const range: Range = quill.getSelection(true);
                pickFile('video/*', (file) =>
                  events.onVideo(file, (url) => {
                    quill.insertEmbed(range.index, 'video', url, 'user');
                    quill.setSelection(range.index + 1, 0);
                  }),
                );
              },
            },
          },
      // Dropped and pasted image files: PNG and JPEG only (Quill's uploader).
      uploader: { mimetypes: [...imageTypes] },
    },
  });
  // Pasted HTML may carry images of other kinds (GIF, SVG, scripts in `src`): left out.
  quill.clipboard.addMatcher('IMG', (node, delta) => {
    const src = (node as HTMLImageElement).getAttribute('src') ?? '';
    return isAllowedImageSource(src) ? delta : new (delta.constructor as new () => typeof delta)();
  });
  nameToolbarControls(host.parentElement);
  quill.clipboard.dangerouslyPasteHTML(html, 'silent');
  quill.history.clear();
  return quill;
}

/** The editor's HTML, or '' when it holds nothing but an empty line. */
export function editorHtml(quill: Quill): string {
  return quill.getLength() <= 1 && quill.getContents().ops.every((op) => op.insert === '\n')
    ? ''
    : quill.root.innerHTML;
}
