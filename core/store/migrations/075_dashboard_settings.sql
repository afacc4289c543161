-- Issue 40 (the dashboard's settings page): keys a person manages there, when each key was last
-- used, and why an App's push credentials are not usable.

-- A third scope: `admin` may do everything `send` may, and create and revoke the app's keys in the
-- dashboard (docs/dashboard.md "Settings"). `send` and `read` keep their meaning.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('send', 'read', 'admin'));

-- Where a key was made: `app_resource` (the controller, from an App's spec.apiKeys: the App is
-- its truth, so the dashboard shows it read-only and the controller manages only these), `cli`
-- (herald keys create, and every key made before this column) or `dashboard`. Keys of apps a
-- cluster manages (named NAMESPACE/NAME) are marked `app_resource`: the controller revoked any
-- other key of such an app, so what stays active there is the App's.
ALTER TABLE api_keys ADD COLUMN source text NOT NULL DEFAULT 'cli' CHECK (source IN ('cli', 'app_resource', 'dashboard'));
UPDATE api_keys SET source = 'app_resource' WHERE app_id IN (SELECT id FROM apps WHERE position('/' in name) > 0);

-- When the key last authenticated a call or a dashboard page, to the minute: each api process
-- writes the keys it saw once a minute in one statement (api/shared/key-use.ts), never a write
-- per request. NULL: not used since this column exists.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- Why the App's credentials were not stored when it was last applied (core/apps/file-source.ts):
-- the reason and sentence the controller's CredentialsReady condition shows, for the dashboard,
-- which cannot read the App's status. NULL when the credentials were stored.
ALTER TABLE apps ADD COLUMN credentials_reason text, ADD COLUMN credentials_problem text;
