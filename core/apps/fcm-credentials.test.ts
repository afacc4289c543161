// The Firebase service-account check: each reason it gives, and the edges of what it accepts.
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { CredentialsError } from './credentials.js';
import { FCM_JSON_MAX_BYTES, fcmCredentialsFromSecret } from './fcm-credentials.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const ACCOUNT = {
  type: 'service_account',
  project_id: 'herald-demo-42',
  private_key_id: 'abc123',
  private_key: rsa,
  client_email: 'herald@herald-demo-42.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};

const spec = { secretRef: { name: 'myapp-fcm' } };
const secretOf = (json: unknown) => ({ 'service-account.json': Buffer.from(typeof json === 'string' ? json : JSON.stringify(json)) });
const without = (key: keyof typeof ACCOUNT) => Object.fromEntries(Object.entries(ACCOUNT).filter(([k]) => k !== key));

/** The JSON of ACCOUNT padded with spaces to exactly `bytes` bytes. */
function paddedTo(bytes: number): Buffer {
  const text = JSON.stringify(ACCOUNT);
  return Buffer.from(text.slice(0, -1) + ' '.repeat(bytes - Buffer.byteLength(text)) + '}');
}

function reasonOf(data: Record<string, Buffer>): string | undefined {
  try {
    fcmCredentialsFromSecret(spec, data);
    return undefined;
  } catch (error) {
    if (!(error instanceof CredentialsError)) throw error;
    return error.reason;
  }
}

describe('fcmCredentialsFromSecret', () => {
  it('reads the fields Herald uses from a good service account', () => {
    expect(fcmCredentialsFromSecret(spec, secretOf(ACCOUNT))).to.deep.equal({
      projectId: 'herald-demo-42', clientEmail: ACCOUNT.client_email, privateKey: rsa, tokenUri: 'https://oauth2.googleapis.com/token',
    });
  });

  const refused: { name: string; data: Record<string, Buffer>; reason: string; sentence?: RegExp }[] = [
    { name: 'no service-account.json entry', data: { 'key.json': Buffer.from('{}') }, reason: 'FcmKeyMissing', sentence: /Secret myapp-fcm has no service-account.json entry/ },
    { name: 'an empty entry', data: secretOf(''), reason: 'FcmKeyMissing' },
    { name: 'one byte over 16 KiB', data: { 'service-account.json': paddedTo(FCM_JSON_MAX_BYTES + 1) }, reason: 'FcmJsonInvalid', sentence: /16385 bytes, over the 16384/ },
    { name: 'not JSON', data: secretOf('{"project_id": '), reason: 'FcmJsonInvalid', sentence: /is not JSON/ },
    { name: 'a JSON array', data: secretOf([ACCOUNT]), reason: 'FcmJsonInvalid', sentence: /not a JSON object/ },
    { name: 'JSON null', data: secretOf('null'), reason: 'FcmJsonInvalid' },
    { name: 'not UTF-8', data: { 'service-account.json': Buffer.from([0x7b, 0xff, 0x7d]) }, reason: 'FcmJsonInvalid', sentence: /not UTF-8/ },
    { name: 'a __proto__ key', data: secretOf(`{"__proto__": {"token_uri": "http://evil.example/"}, ${JSON.stringify(ACCOUNT).slice(1)}`), reason: 'FcmJsonInvalid', sentence: /key named __proto__/ },
    { name: 'a nested constructor key', data: secretOf({ ...ACCOUNT, extra: { constructor: 1 } }), reason: 'FcmJsonInvalid' },
    { name: 'another type of key file', data: secretOf({ ...ACCOUNT, type: 'authorized_user' }), reason: 'FcmNotServiceAccount' },
    { name: 'no project_id', data: secretOf(without('project_id')), reason: 'FcmFieldMissing', sentence: /has no project_id/ },
    { name: 'no client_email', data: secretOf(without('client_email')), reason: 'FcmFieldMissing', sentence: /has no client_email/ },
    { name: 'no private_key', data: secretOf(without('private_key')), reason: 'FcmFieldMissing', sentence: /has no private_key/ },
    { name: 'no token_uri', data: secretOf(without('token_uri')), reason: 'FcmFieldMissing', sentence: /has no token_uri/ },
    { name: 'a number as project_id', data: secretOf({ ...ACCOUNT, project_id: 42 }), reason: 'FcmFieldMissing' },
    { name: 'a blank client_email', data: secretOf({ ...ACCOUNT, client_email: '  ' }), reason: 'FcmFieldMissing' },
    { name: 'a project id with a slash', data: secretOf({ ...ACCOUNT, project_id: 'demo/../x' }), reason: 'FcmFieldInvalid' },
    { name: 'a project id of 5 characters', data: secretOf({ ...ACCOUNT, project_id: 'abcde' }), reason: 'FcmFieldInvalid' },
    { name: 'a project id of 31 characters', data: secretOf({ ...ACCOUNT, project_id: `a${'b'.repeat(30)}` }), reason: 'FcmFieldInvalid' },
    { name: 'a client_email with no @', data: secretOf({ ...ACCOUNT, client_email: 'herald.example.com' }), reason: 'FcmFieldInvalid' },
    { name: 'a NUL in a field', data: secretOf({ ...ACCOUNT, client_email: 'a\u0000@b.c' }), reason: 'FcmFieldInvalid' },
    { name: 'a private key that is not PEM', data: secretOf({ ...ACCOUNT, private_key: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n' }), reason: 'FcmKeyUnreadable', sentence: /not a readable PEM private key/ },
    { name: 'an EC private key', data: secretOf({ ...ACCOUNT, private_key: ec }), reason: 'FcmKeyWrongType', sentence: /must be an RSA key/ },
    { name: 'a token_uri that is not a URL', data: secretOf({ ...ACCOUNT, token_uri: 'oauth2.googleapis.com/token' }), reason: 'FcmTokenUriInvalid', sentence: /is not a URL/ },
    { name: 'a plain-http token_uri to another host', data: secretOf({ ...ACCOUNT, token_uri: 'http://oauth2.googleapis.com/token' }), reason: 'FcmTokenUriInvalid', sentence: /must be https/ },
    { name: 'a token_uri of another scheme', data: secretOf({ ...ACCOUNT, token_uri: 'ftp://oauth2.googleapis.com/token' }), reason: 'FcmTokenUriInvalid' },
    { name: 'a token_uri with a password', data: secretOf({ ...ACCOUNT, token_uri: 'https://u:p@oauth2.googleapis.com/token' }), reason: 'FcmTokenUriInvalid' },
    { name: 'a plain-http token_uri to 128.0.0.1', data: secretOf({ ...ACCOUNT, token_uri: 'http://128.0.0.1/token' }), reason: 'FcmTokenUriInvalid' },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} (${c.reason})`, () => {
      expect(reasonOf(c.data)).to.equal(c.reason);
      if (c.sentence) expect(() => fcmCredentialsFromSecret(spec, c.data)).to.throw(CredentialsError, c.sentence);
    });
  }

  const accepted: { name: string; data: Record<string, Buffer> }[] = [
    { name: 'exactly 16 KiB', data: { 'service-account.json': paddedTo(FCM_JSON_MAX_BYTES) } },
    { name: 'no type field', data: secretOf(without('type')) },
    { name: 'a UTF-8 byte order mark', data: { 'service-account.json': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ACCOUNT))]) } },
    { name: 'a project id of 6 characters', data: secretOf({ ...ACCOUNT, project_id: 'abcdef' }) },
    { name: 'a project id of 30 characters', data: secretOf({ ...ACCOUNT, project_id: `a${'b'.repeat(29)}` }) },
    { name: 'a domain-scoped project id', data: secretOf({ ...ACCOUNT, project_id: 'example.com:herald-demo' }) },
    { name: 'a PKCS#1 RSA key', data: secretOf({ ...ACCOUNT, private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() }) },
    { name: 'http to localhost (a simulator)', data: secretOf({ ...ACCOUNT, token_uri: 'http://localhost:4001/token' }) },
    { name: 'http to 127.0.0.1', data: secretOf({ ...ACCOUNT, token_uri: 'http://127.0.0.1:4001/token' }) },
    { name: 'http to [::1]', data: secretOf({ ...ACCOUNT, token_uri: 'http://[::1]:4001/token' }) },
    { name: 'https to a simulator in the cluster', data: secretOf({ ...ACCOUNT, token_uri: 'https://fcm-sim.herald.svc:4001/token' }) },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, () => expect(reasonOf(c.data)).to.equal(undefined));
  }
});
