-- Message templates made through the API (issue 30 point 1; docs/api.md "Templates"): createTemplate,
-- viewTemplates, viewTemplate, updateTemplate, deleteTemplate, and a send's template_id. `content`
-- holds the template's fields as the send body names them (core/templates/template-schema.ts
-- TEMPLATE_FIELDS), checked by the send's own rules when written; a send copies them into its
-- body when accepted, so a later change never alters a send already recorded.
CREATE TABLE templates (
  id          uuid PRIMARY KEY,
  app_id      uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  name        text NOT NULL,
  content     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- viewTemplates pages an app's templates, oldest first.
CREATE INDEX templates_app_created ON templates (app_id, created_at, id);
