// What a send's report shows of its message (issue 30 point 6): every language's texts, the link,
// the image, the data, the button, the iOS fields, the platforms and Android fields, and the template its content came from. Read
// from the recorded request (the validated SendRequest, core/send-model/request.ts) by its parts,
// never its audience (a list send's request holds up to 500 ids the report does not need).
import type { Queryable } from '../store/db.js';
import { requestJsonSql as json, requestTextSql as text, type SendRequest } from '../send-model/request.js';

/** A message as the dashboard shows it: a send's recorded request, a template's or a composed one's. */
export type MessageFields = Pick<SendRequest, 'contents' | 'headings' | 'subtitle' | 'url' | 'imageUrl' | 'data' | 'button' | 'apns' | 'android' | 'platforms'>;

export interface SendMessage extends MessageFields {
  /** The template the send named; `name` null when it has been deleted since. */
  template?: { id: string; name: string | null };
}

interface Row {
  contents: Record<string, string> | null;
  headings: Record<string, string> | null;
  subtitle: Record<string, string> | null;
  url: string | null;
  image_url: string | null;
  data: Record<string, string> | null;
  button: SendRequest['button'] | null;
  apns: SendRequest['apns'] | null;
  android: SendRequest['android'] | null;
  platforms: SendRequest['platforms'] | null;
  template_id: string | null;
  template_name: string | null;
}

const defined = <T>(value: T | null): T | undefined => value ?? undefined;

/** The message of the app's send `id`, or undefined (another app's send included). */
export async function readSendMessage(db: Queryable, appId: string, id: number): Promise<SendMessage | undefined> {
  // The template is joined within the send's app: a template id recorded with the send is always
  // its own app's (apply-template.ts reads it so), and the join says it again.
  const res = await db.query<Row>(
    `SELECT ${json('s.request', 'contents')} AS contents, ${json('s.request', 'headings')} AS headings,
            ${json('s.request', 'subtitle')} AS subtitle, ${text('s.request', 'url')} AS url,
            ${text('s.request', 'imageUrl')} AS image_url, ${json('s.request', 'data')} AS data,
            ${json('s.request', 'button')} AS button, ${json('s.request', 'apns')} AS apns,
            ${json('s.request', 'android')} AS android, ${json('s.request', 'platforms')} AS platforms,
            ${text('s.request', 'templateId')} AS template_id, t.name AS template_name
       FROM sends s LEFT JOIN templates t ON t.app_id = s.app_id AND t.id::text = ${text('s.request', 'templateId')}
      WHERE s.id = $1 AND s.app_id = $2`,
    [id, appId],
  );
  const r = res.rows[0];
  if (!r) return undefined;
  return {
    contents: r.contents ?? {},
    headings: defined(r.headings),
    subtitle: defined(r.subtitle),
    url: defined(r.url),
    imageUrl: defined(r.image_url),
    data: defined(r.data),
    button: defined(r.button),
    apns: r.apns ?? {},
    android: defined(r.android),
    platforms: defined(r.platforms),
    ...(r.template_id !== null ? { template: { id: r.template_id, name: r.template_name } } : {}),
  };
}
