import { postForm, type UploadControl } from '@/lib/authorized-fetch';

/** Spec §7 file-saver: POST /api/file/save multipart {idRelated, file}, plus the document's title. */
export function saveDocument(
  modelId: bigint,
  title: string,
  file: File | undefined,
  control?: UploadControl,
) {
  const form = new FormData();
  form.append('idRelated', String(modelId));
  form.append('title', title);
  if (file) form.append('file', file, file.name);
  return postForm<{ id: number; url: string }>('/api/file/save', form, control);
}

/** Spec §7 video saver: POST /api/video/save multipart {video}, answering data.savedVideoUrl. */
export function saveVideo(video: File, control?: UploadControl) {
  const form = new FormData();
  form.append('video', video, video.name);
  return postForm<{ savedVideoUrl: string }>('/api/video/save', form, control);
}
