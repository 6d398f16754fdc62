import { fetchRest } from '@/lib/rest';

export type PublicInstruction = { name: string; shortInstruction: string };

/**
 * The public read of one instruction (wiki's GetPublicInstruction over REST): no token, and
 * none of grpc-web's code on the page a phone opens from a QR code.
 */
export const fetchPublicInstruction = (modelId: bigint) =>
  fetchRest<PublicInstruction>(
    `/api/environment-model/get-public-instruction?environmentModelId=${String(modelId)}`,
  );
