/** DESIGN §8 and spec §5: the only protocols a link or an embedded video may use. */
export const allowedProtocols = ['http', 'https', 'mailto', 'tel', 'sms'] as const;

/** What a link with any other protocol becomes. */
export const blockedUrl = 'about:blank';

/**
 * A link or video address as the editor keeps it: unchanged when its protocol is allowed
 * (a relative address is, as it stays on the portal), `about:blank` otherwise.
 */
export function safeUrl(url: string, base: string = window.location.href): string {
  let protocol: string;
  try {
    protocol = new URL(url.trim(), base).protocol.replace(/:$/, '');
  } catch {
    return blockedUrl;
  }
  return (allowedProtocols as readonly string[]).includes(protocol) ? url.trim() : blockedUrl;
}

/** An embedded video's address without `autoplay` (spec §5: embedded frames never play by themselves). */
export function withoutAutoplay(url: string): string {
  const [address = '', fragment] = url.split('#', 2);
  const [path = '', query] = address.split('?', 2);
  if (query === undefined) return url;
  const kept = query.split('&').filter((pair) => !/^auto_?play(=|$)/i.test(pair));
  return `${path}${kept.length > 0 ? `?${kept.join('&')}` : ''}${fragment === undefined ? '' : `#${fragment}`}`;
}

/** Spec §5: the editor takes PNG and JPEG images only. */
export const imageTypes = ['image/png', 'image/jpeg'] as const;

export const isImageType = (type: string) => (imageTypes as readonly string[]).includes(type);

/** An image address the editor keeps: a PNG/JPEG data URL, or an http(s) or relative one. */
export function isAllowedImageSource(src: string, base: string = window.location.href): boolean {
  const data = /^data:([^;,]+)[;,]/i.exec(src.trim());
  if (data) return isImageType((data[1] ?? '').toLowerCase());
  const url = safeUrl(src, base);
  return url !== blockedUrl && !/^(mailto|tel|sms):/i.test(url);
}
