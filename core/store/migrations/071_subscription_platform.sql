-- The platform of an install (issue 39): 'ios' reached through APNs, 'android' through FCM. Every
-- install before Android is iOS; adding a column with a constant default rewrites nothing.
ALTER TABLE subscriptions ADD COLUMN platform text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android'));
