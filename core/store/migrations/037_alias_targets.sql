-- include_aliases of a label other than external_id (issue 27): a list send of its own kind, the
-- ids of that label (or OneSignal ids), delivered to the installs of the users they name.
ALTER TABLE sends DROP CONSTRAINT sends_target_kind_check;
ALTER TABLE sends ADD CONSTRAINT sends_target_kind_check
  CHECK (target_kind IN ('segment', 'tag', 'filters', 'subscription_ids', 'external_ids', 'activity', 'aliases'));
