// What the service worker (src/service-worker) and the public instruction page agree on: the
// one REST read the worker keeps a copy of, and how it marks an answer that is that copy.

/** Wiki's GetPublicInstruction over REST: public, so the only API answer the worker may keep. */
export const publicInstructionPath = '/api/environment-model/get-public-instruction';

/** The read of one model's instruction, as the page makes it and the worker keys its copy. */
export const publicInstructionUrl = (modelId: bigint) =>
  `${publicInstructionPath}?environmentModelId=${String(modelId)}`;

/**
 * On an answer the worker gives from its copy because the network failed: when the copy was
 * saved (ISO 8601). An answer from the network never carries it.
 */
export const savedAtHeader = 'X-Portal-Saved-At';
