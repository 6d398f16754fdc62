// Shared by the equipment pages (an instruction's QR code) and the cabinet (an authenticator's).

/** The QR code PNG the server made (bytes) as an address an `<img>` can show. */
export function qrDataUrl(png: Uint8Array): string | undefined {
  if (png.length === 0) return undefined;
  let binary = '';
  for (const byte of png) binary += String.fromCharCode(byte);
  return `data:image/png;base64,${btoa(binary)}`;
}
