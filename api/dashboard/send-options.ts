// What the report shows of a send's iOS options: read from its recorded request (the validated
// SendRequest), only the parts named here.
import type { Queryable } from '../../core/store/db.js';
import { requestJsonSql, type ApnsOptions } from '../../core/send-model/request.js';

export interface SendOptions {
  apns: ApnsOptions;
  subtitle: Record<string, string>;
  /** No text: a background push (no alert, sound or badge reaches the device). */
  noText: boolean;
}

export async function readSendOptions(db: Queryable, appId: string, id: number): Promise<SendOptions> {
  const res = await db.query<{ apns: ApnsOptions | null; subtitle: Record<string, string> | null; no_text: boolean | null }>(
    `SELECT ${requestJsonSql('request', 'apns')} AS apns, ${requestJsonSql('request', 'subtitle')} AS subtitle, coalesce(${requestJsonSql('request', 'contents')}, '{}') = '{}' AS no_text
       FROM sends WHERE id = $1 AND app_id = $2`,
    [id, appId],
  );
  return { apns: res.rows[0]?.apns ?? {}, subtitle: res.rows[0]?.subtitle ?? {}, noText: res.rows[0]?.no_text ?? false };
}
