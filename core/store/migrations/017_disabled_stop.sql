-- A send of an App that was deleted or disabled stops like a paused one, with its own reason, so
-- its final message says why (core/apps/sendable.ts, core/send/transitions.ts).
ALTER TABLE sends DROP CONSTRAINT sends_stopped_check;
ALTER TABLE sends ADD CONSTRAINT sends_stopped_check CHECK (stopped IN ('paused', 'credentials', 'canceled', 'disabled'));
