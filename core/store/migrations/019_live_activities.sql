-- Live Activity pushes are sends like the others (docs/live-activities.md): the same rows, chunks,
-- counters and reports, with kind 'live_activity'. An update or an end goes to the update tokens
-- of one activity: target kind 'activity' (its chunks name the installs in `entries`). A
-- push-to-start keeps its audience's target kind. Needs nothing of 024_live_activity_tokens.sql
-- (landed together, as 019_live_activity_tokens.sql; renumbered by issue 26).
ALTER TABLE sends DROP CONSTRAINT sends_kind_check;
ALTER TABLE sends ADD CONSTRAINT sends_kind_check CHECK (kind IN ('push', 'in_app', 'live_activity'));
ALTER TABLE sends DROP CONSTRAINT sends_target_kind_check;
ALTER TABLE sends ADD CONSTRAINT sends_target_kind_check
  CHECK (target_kind IN ('segment', 'tag', 'filters', 'subscription_ids', 'external_ids', 'activity'));
