import type { File } from '@/gen/portal/files/v1/files_pb';

import { fetchDocument } from '../api/uploads';

// What a browser shows by itself; anything else (Office files, archives) is saved instead.
const inlineTypes = ['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain'];

export const opensInline = (contentType: string) =>
  inlineTypes.includes(contentType.split(';')[0]?.trim().toLowerCase() ?? '') ||
  contentType.startsWith('video/');

/**
 * Opens a document in a new tab (PDF, pictures, video) or saves it under its name. The tab
 * opens at once, inside the click, so that no pop-up blocker stops it, and receives the
 * content when it has arrived. Resolves to the reason when the content could not be had.
 */
export async function openDocument(file: File): Promise<string | undefined> {
  const tab = opensInline(file.contentType) ? window.open('', '_blank') : null;
  const result = await fetchDocument(file.url);
  if (!result.ok) {
    tab?.close();
    return result.message;
  }
  const objectUrl = URL.createObjectURL(result.blob);
  if (tab) {
    tab.opener = null;
    tab.location.href = objectUrl;
  } else {
    const link = document.createElement('a');
    link.href = objectUrl;
    link.download = file.fileName || file.title;
    link.click();
  }
  // The tab has loaded it by then; the memory goes back.
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
  return undefined;
}
