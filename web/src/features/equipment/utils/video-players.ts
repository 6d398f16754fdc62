// Where the files service serves a stored file; the instruction's own videos live there.
const portalFile = /^\/api\/file\/download\/\d+$/;

/**
 * An instruction's HTML with each of the portal's own videos as a `<video>` player. Quill
 * stores a video as an iframe whose address is the file itself, and a browser shows a media
 * file in a frame as a document that plays at once; a player with controls plays only when
 * asked, loads no more than its length and first frame, and plays inline on a phone.
 * Frames of other addresses stay as they are.
 */
export function withVideoPlayers(html: string): string {
  if (!html.includes('<iframe')) return html;
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const frame of template.content.querySelectorAll('iframe')) {
    const src = frame.getAttribute('src') ?? '';
    let path: string;
    try {
      path = new URL(src, window.location.origin).pathname;
    } catch {
      continue;
    }
    if (!portalFile.test(path)) continue;
    const video = document.createElement('video');
    video.controls = true;
    video.playsInline = true;
    video.preload = 'metadata';
    video.src = src;
    video.className = frame.className;
    frame.replaceWith(video);
  }
  return template.innerHTML;
}
