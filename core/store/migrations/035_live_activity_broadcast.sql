-- Broadcast push for Live Activities (issue 29, docs/live-activities.md "Broadcast channels"): an
-- App opts in with `spec.liveActivities.broadcast: true` (its resource, or the same manifest
-- through `herald apps apply`); off for every existing app, which keeps per-token delivery.
ALTER TABLE apps ADD COLUMN live_activity_broadcast boolean NOT NULL DEFAULT false;
