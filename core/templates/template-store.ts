// The templates an app keeps (table templates, migration 040): make, list, read, change, delete,
// always within one app (another app's id is not found). At most TEMPLATE_LIMITS.per_app per app:
// writes of one app that make a template run one at a time (an advisory lock), so the count holds
// under concurrent calls.
import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../formats/uuid.js';
import { inTransaction, type Pool, type Queryable } from '../store/db.js';
import { TEMPLATE_LIMITS } from './template-limits.js';
import type { TemplateBody, TemplateContent } from './template-schema.js';

export const NO_TEMPLATE = 'No such template.';

export interface Template {
  id: string;
  appId: string;
  name: string;
  content: TemplateContent;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `id, app_id, name, content, to_json(created_at) #>> '{}' AS created_at, to_json(updated_at) #>> '{}' AS updated_at`;

interface Row {
  id: string;
  app_id: string;
  name: string;
  content: TemplateContent;
  created_at: string;
  updated_at: string;
}

const toTemplate = (r: Row): Template => ({ id: r.id, appId: r.app_id, name: r.name, content: r.content, createdAt: r.created_at, updatedAt: r.updated_at });

/** The app's template of this id, or undefined (an id of another app or not a UUID included). */
export async function findTemplate(db: Queryable, appId: string, id: string, lock = false): Promise<Template | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await db.query<Row>(`SELECT ${COLUMNS} FROM templates WHERE app_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [appId, id.toLowerCase()]);
  return res.rows[0] && toTemplate(res.rows[0]);
}

export async function createTemplate(pool: Pool, appId: string, body: Required<TemplateBody>): Promise<Template> {
  return inTransaction(pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('herald-templates'), hashtext($1))`, [appId]);
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM templates WHERE app_id = $1', [appId]);
    if (count.rows[0].n >= TEMPLATE_LIMITS.per_app) {
      throw new ValidationError({ field: 'name', message: `This app has ${TEMPLATE_LIMITS.per_app} templates, the most it may have; delete one to make another.` });
    }
    const res = await db.query<Row>(`INSERT INTO templates (id, app_id, name, content) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`, [randomUUID(), appId, body.name, JSON.stringify(body.content)]);
    return toTemplate(res.rows[0]);
  });
}

/** A page of the app's templates, oldest first, and how many it has. */
export async function listTemplates(db: Queryable, appId: string, offset: number, limit: number): Promise<{ total: number; templates: Template[] }> {
  const [total, page] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM templates WHERE app_id = $1', [appId]),
    db.query<Row>(`SELECT ${COLUMNS} FROM templates WHERE app_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3`, [appId, offset, limit]),
  ]);
  return { total: total.rows[0].n, templates: page.rows.map(toTemplate) };
}

/** Changes a template: `change` reads its current content (under the row's lock) and returns what to write. */
export async function updateTemplate(pool: Pool, appId: string, id: string, change: (current: Template) => TemplateBody): Promise<Template> {
  return inTransaction(pool, async (db) => {
    const current = await findTemplate(db, appId, id, true);
    if (!current) throw new NotFoundError(NO_TEMPLATE);
    const next = change(current);
    const res = await db.query<Row>(
      `UPDATE templates SET name = $3, content = $4, updated_at = now() WHERE app_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [appId, current.id, next.name ?? current.name, JSON.stringify(next.content)],
    );
    return toTemplate(res.rows[0]);
  });
}

export async function deleteTemplate(db: Queryable, appId: string, id: string): Promise<void> {
  const res = isUuid(id) ? await db.query('DELETE FROM templates WHERE app_id = $1 AND id = $2', [appId, id.toLowerCase()]) : { rowCount: 0 };
  if (!res.rowCount) throw new NotFoundError(NO_TEMPLATE);
}
