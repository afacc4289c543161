-- getOutcomes (issue 30 point 4; core/send/click-outcomes.ts): the clicks of an app's sends since a
-- time. Without this index the count read every open of every app (a sequential scan of `opens`,
-- joined to the app's sends by hash); with it, each of the app's sends gives its opens in the time
-- range from the index alone. Measured: docs/decisions.md "Issue 30 — history, events, outcomes",
-- row "outcomes' index".
CREATE INDEX opens_send_opened ON opens (send_id, opened_at);
