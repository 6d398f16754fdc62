import { Box } from '@mui/material';
import Quill from 'quill';
import 'quill/dist/quill.snow.css';
import { useEffect, useEffectEvent, useRef, useState } from 'react';

import { richTextStyle } from '@/components/rich-text-style';
import { nameToolbarControls, richTextToolbar } from '@/components/rich-text-toolbar';
import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';
import { useEditedReport } from '@/lib/unsaved';

// Spec §5: links only with these protocols, anything else becomes about:blank (Quill's
// sanitiser, which its video embeds use as well). The server cleans the HTML again on save.
const Link = Quill.import('formats/link') as { PROTOCOL_WHITELIST: string[] };
Link.PROTOCOL_WHITELIST = ['http', 'https', 'mailto', 'tel', 'sms'];

const imageTypes = ['image/png', 'image/jpeg'];

const editorStyle = richTextStyle(adminStrings.education.article.editorHeadings);

/** Spec §5: the image button takes only PNG and JPEG, embedded as data (DESIGN §8 allows those). */
function insertImage(quill: Quill) {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = imageTypes.join(',');
  input.onchange = () => {
    const file = input.files?.[0];
    if (!file) return;
    if (!imageTypes.includes(file.type)) {
      notify.error(adminStrings.education.article.onlyPngJpeg);
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const at = quill.getSelection(true).index;
      quill.insertEmbed(at, 'image', reader.result, 'user');
    };
    reader.readAsDataURL(file);
  };
  input.click();
}

type RichTextEditorProps = {
  label: string;
  /** The content to start from; later changes of it are not picked up. */
  initialHtml: string;
  onChange: (html: string) => void;
  disabled: boolean;
};

/** The article content editor (Quill). Only the article page loads it, with its own chunk. */
export function RichTextEditor({ label, initialHtml, onChange, disabled }: RichTextEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Quill | null>(null);
  const changed = useEffectEvent(onChange);
  const initial = useRef(initialHtml);
  // What a person did in the editor (not Quill's own loading of the content) is an edit.
  const [edited, setEdited] = useState(false);
  useEditedReport(edited);

  useEffect(() => {
    const container = host.current;
    if (!container) return;
    const element = document.createElement('div');
    container.append(element);
    const quill = new Quill(element, {
      theme: 'snow',
      placeholder: adminStrings.education.article.editorPlaceholder,
      modules: { toolbar: { container: richTextToolbar, handlers: { image: () => insertImage(quill) } } },
    });
    nameToolbarControls(container);
    quill.root.setAttribute('role', 'textbox');
    quill.root.setAttribute('aria-multiline', 'true');
    quill.root.setAttribute('aria-label', label);
    quill.clipboard.dangerouslyPasteHTML(initial.current, 'silent');
    quill.on('text-change', (_delta, _old, source) => {
      if (source === 'user') setEdited(true);
      changed(quill.getLength() <= 1 ? '' : quill.root.innerHTML);
    });
    editor.current = quill;
    return () => {
      editor.current = null;
      container.replaceChildren();
    };
  }, [label]);

  useEffect(() => {
    editor.current?.enable(!disabled);
  }, [disabled]);

  return (
    <Box
      ref={host}
      sx={{
        ...editorStyle,
        '& .ql-toolbar.ql-snow': { borderRadius: '4px 4px 0 0' },
        '& .ql-container.ql-snow': { borderRadius: '0 0 4px 4px' },
        '& .ql-editor': { minHeight: 280 },
      }}
    />
  );
}
