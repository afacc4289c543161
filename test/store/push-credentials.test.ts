// The draft rule of issue 39 (core/apps/sendable.ts): an app may send with APNs credentials,
// Firebase ones or both, and is a draft with neither. The TypeScript predicate and its SQL are
// held equal on each of the four cases, through the app record every path reads (getApp).
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { useTestEnv } from '../env/index.js';
import { makeApp } from '../support/apps.js';
import { getApp } from '../../core/apps/app-store.js';
import { hasPushCredentials, hasPushCredentialsSql } from '../../core/apps/sendable.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';

describe('core/apps/sendable.ts: has push credentials (APNs, Firebase or both)', () => {
  const env = useTestEnv({ bus: false, redis: false });
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const account = { projectId: 'herald-demo', clientEmail: 'push@herald-demo.iam.gserviceaccount.com', tokenUri: 'https://oauth2.googleapis.com/token', privateKey };

  const cases = [
    { name: 'neither', apns: false, fcm: false, sends: false },
    { name: 'APNs only', apns: true, fcm: false, sends: true },
    { name: 'Firebase only', apns: false, fcm: true, sends: true },
    { name: 'both', apns: true, fcm: true, sends: true },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.sends ? 'sends' : 'a draft'}, in TypeScript and in SQL alike`, async () => {
      const { app } = await makeApp(env.pool, { credentials: c.apns });
      if (c.fcm) await setFcmCredentials(env.pool, app.id, account);
      const record = (await getApp(env.pool, app.id))!;
      expect(record).to.include({ hasApnsCredentials: c.apns, hasFcmCredentials: c.fcm, hasCredentials: c.sends });
      expect(hasPushCredentials(record)).to.equal(c.sends);
      const sql = await env.pool.query(`SELECT ${hasPushCredentialsSql('a')} AS has FROM apps a WHERE a.id = $1`, [app.id]);
      expect(sql.rows[0].has).to.equal(c.sends);
    });
  }
});
