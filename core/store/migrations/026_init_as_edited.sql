-- 001_init.sql was edited twice after it landed, and migrations are recorded by name, so a
-- database migrated before an edit kept the older shape: 8bd7626 made subscriptions_audience one
-- index for every install (it was partial, WHERE subscribed), aeb48fc dropped the unused
-- sends.first_response. This brings such a database to today's 001 and changes nothing on any
-- other (each step looks before it writes, so a current database takes no lock and rebuilds no
-- index). Tested from every landed version by test/store/upgrade.test.ts.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = 'subscriptions_audience'::regclass AND indpred IS NOT NULL) THEN
    DROP INDEX subscriptions_audience;
    CREATE INDEX subscriptions_audience ON subscriptions (app_id, seq) INCLUDE (subscribed, last_active);
  END IF;
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'sends'::regclass AND attname = 'first_response' AND NOT attisdropped) THEN
    ALTER TABLE sends DROP COLUMN first_response;
  END IF;
END
$$;
