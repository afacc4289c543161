// The two kinds of work job on the bus (SUBJECTS.planJob, SUBJECTS.chunkJob) and their message
// ids. A message id names the job, not the attempt, so a replayed publish (outbox relay, replan
// after a crash) is dropped by JetStream inside its duplicate window, and outside it the chunk's
// row in send_chunks still makes the replay harmless.

export const CHUNK_SIZE = 500;

export interface PlanJob {
  sendId: number;
}

export interface ChunkJob {
  sendId: number;
  chunk: number;
}

export const planMsgId = (sendId: number) => `plan-${sendId}`;
export const chunkMsgId = (sendId: number, chunk: number) => `chunk-${sendId}-${chunk}`;

export function isPlanJob(value: unknown): value is PlanJob {
  const v = value as Record<string, unknown> | null;
  return !!v && Number.isSafeInteger(v.sendId) && v.chunk === undefined;
}

export function isChunkJob(value: unknown): value is ChunkJob {
  const v = value as Record<string, unknown> | null;
  return !!v && Number.isSafeInteger(v.sendId) && Number.isSafeInteger(v.chunk);
}
