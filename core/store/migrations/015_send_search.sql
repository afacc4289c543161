-- The list call's search (`q`) reads what a person wrote — the message texts, the headings and
-- the send's name — never the keys, quotes or braces of the stored JSON (a `"` or `en` matched
-- every send). The words live in a generated column with a trigram index, so a search stays an
-- index scan at a million sends in one app (docs/benchmarks.md "The list call's search").
-- pg_trgm is a trusted extension: the database owner may create it (no superuser needed).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION herald_send_search_text(request jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT concat_ws(E'\n',
    request->>'name',
    (SELECT string_agg(value, E'\n') FROM jsonb_each_text(CASE WHEN jsonb_typeof(request->'contents') = 'object' THEN request->'contents' ELSE '{}'::jsonb END)),
    (SELECT string_agg(value, E'\n') FROM jsonb_each_text(CASE WHEN jsonb_typeof(request->'headings') = 'object' THEN request->'headings' ELSE '{}'::jsonb END)))
$$;

ALTER TABLE sends ADD COLUMN search_text text GENERATED ALWAYS AS (herald_send_search_text(request)) STORED;
CREATE INDEX sends_search ON sends USING gin (search_text gin_trgm_ops);
