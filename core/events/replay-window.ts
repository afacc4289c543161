// How far back `herald events replay` reaches (docs/events.md "Replay"): an event record is kept
// REPLAY_DAYS after it is recorded even once every destination has taken it, so a team whose
// receiver lost events it had acknowledged can have them again. Undelivered records are kept up to
// HERALD_CHUNK_RETENTION_DAYS (the same device outcomes as the chunk rows); the window is never
// longer than that.

/** A week: enough to notice a receiver that lost what it acknowledged, at ~40 MB a 1,000,000-device send. */
export const REPLAY_DAYS = 7;

/** The days a delivered record is kept, given HERALD_CHUNK_RETENTION_DAYS (0: no age cap). */
export function replayWindowDays(chunkDays: number): number {
  return chunkDays > 0 ? Math.min(REPLAY_DAYS, chunkDays) : REPLAY_DAYS;
}
