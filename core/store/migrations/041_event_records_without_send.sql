-- Event records of facts that belong to no send (issue 28, docs/events.md): an app removing a Live
-- Activity token through the SDK's call reports `live_activity.token.removed` or
-- `live_activity.ended` with no `message`. Their rows have no send id.
ALTER TABLE event_records ALTER COLUMN send_id DROP NOT NULL;
