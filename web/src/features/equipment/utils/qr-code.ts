/** Spec §9: the QR code downloads as a 256×256 PNG. */
export const qrDownloadSize = 256;

export { qrDataUrl } from '@/lib/qr-data-url';

/** What most file systems allow in one file name, in bytes. */
const maxFileNameBytes = 255;

/**
 * `<base><extension>` in at most 255 UTF-8 bytes: a long model name is cut between
 * characters (never inside one: Cyrillic takes two bytes) so that the download can be saved.
 */
export function fileNameWithin(base: string, extension: string): string {
  const encoder = new TextEncoder();
  let room = maxFileNameBytes - encoder.encode(extension).length;
  let kept = '';
  for (const character of base) {
    room -= encoder.encode(character).length;
    if (room < 0) break;
    kept += character;
  }
  return `${kept.trimEnd()}${extension}`;
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((done, fail) => {
    const image = new Image();
    image.onload = () => done(image);
    image.onerror = () => fail(new Error('the QR code image did not load'));
    image.src = src;
  });
}

/**
 * Redraws the QR code at 256×256 without smoothing (its modules stay sharp squares, so
 * scanners read it) and saves it as `<fileName>.png`, shortened to fit a file system.
 */
export async function downloadQrCode(src: string, fileName: string): Promise<void> {
  const image = await loadImage(src);
  const canvas = document.createElement('canvas');
  canvas.width = qrDownloadSize;
  canvas.height = qrDownloadSize;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2D canvas');
  context.imageSmoothingEnabled = false;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, qrDownloadSize, qrDownloadSize);
  context.drawImage(image, 0, 0, qrDownloadSize, qrDownloadSize);
  const blob = await new Promise<Blob | null>((done) => canvas.toBlob(done, 'image/png'));
  if (!blob) throw new Error('the canvas gave no PNG');
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = fileNameWithin(fileName, '.png');
  link.click();
  URL.revokeObjectURL(link.href);
}
