-- A send's target may be `filters`: several conditions on an install's fields, groups joined by
-- OR (core/validation/send-target.ts). A single tag condition stays a `tag` target.
ALTER TABLE sends DROP CONSTRAINT sends_target_kind_check;
ALTER TABLE sends ADD CONSTRAINT sends_target_kind_check CHECK (target_kind IN ('segment', 'tag', 'filters', 'subscription_ids', 'external_ids'));
