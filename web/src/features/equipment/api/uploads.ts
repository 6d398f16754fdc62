import { authorizedFetch, postForm } from '@/lib/authorized-fetch';
import { readEnvelope } from '@/lib/rest';
import { strings } from '@/lib/strings';

/** Spec §7 file-saver: POST /api/file/save multipart {idRelated, file}, plus the document's title. */
export function saveDocument(modelId: bigint, title: string, file: File | undefined) {
  const form = new FormData();
  form.append('idRelated', String(modelId));
  form.append('title', title);
  if (file) form.append('file', file, file.name);
  return postForm<{ id: number; url: string }>('/api/file/save', form);
}

/** Spec §7 video saver: POST /api/video/save multipart {video}, answering data.savedVideoUrl. */
export function saveVideo(video: File) {
  const form = new FormData();
  form.append('video', video, video.name);
  return postForm<{ savedVideoUrl: string }>('/api/video/save', form);
}

/**
 * A document's content (GET its download URL with the access token: a plain link would
 * arrive without one), or the reason it could not be had.
 */
export async function fetchDocument(
  url: string,
): Promise<{ ok: true; blob: Blob } | { ok: false; message: string }> {
  try {
    const response = await authorizedFetch(url);
    if (response.ok) return { ok: true, blob: await response.blob() };
    const envelope = await readEnvelope(response);
    return { ok: false, message: envelope.ok ? strings.errors.loadFailed : envelope.message };
  } catch {
    return { ok: false, message: strings.errors.network };
  }
}
