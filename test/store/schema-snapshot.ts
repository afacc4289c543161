// The schema of a database as sorted lines, for comparing an upgraded database with a fresh one:
// tables' columns (by name, not position: a column added later sits last in an older database,
// which no query of Herald's depends on), constraints, indexes, functions, triggers, extensions.
import type { Pool } from '../../core/store/db.js';

const SNAPSHOT = `
SELECT format('column %s.%s %s%s%s%s%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
              CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
              coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''),
              CASE a.attgenerated WHEN 's' THEN ' generated' ELSE '' END,
              CASE a.attidentity WHEN '' THEN '' ELSE ' identity ' || a.attidentity::text END) AS line
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid AND c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
  FROM pg_constraint WHERE connamespace = 'public'::regnamespace
UNION ALL
SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
UNION ALL
SELECT 'function ' || pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND prokind = 'f'
UNION ALL
SELECT format('trigger %s %s', tgrelid::regclass, pg_get_triggerdef(oid)) FROM pg_trigger WHERE NOT tgisinternal
UNION ALL
SELECT format('extension %s %s', extname, extversion) FROM pg_extension
UNION ALL
SELECT format('sequence %s', relname) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S'
ORDER BY 1`;

export async function schemaSnapshot(pool: Pool): Promise<string[]> {
  return (await pool.query<{ line: string }>(SNAPSHOT)).rows.map((r) => r.line);
}
