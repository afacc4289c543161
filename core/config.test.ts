import { expect } from 'chai';
import { ConfigError, loadConfig, redactedConfig } from './config.js';

describe('config: the chunk lease and the starts before a chunk is poison, under their names old and new', () => {
  it('defaults: a 30 s lease, 6 starts', () => {
    expect(loadConfig({})).to.include({ senderLeaseMs: 30_000, senderMaxChunkStarts: 6 });
  });

  it('reads the new names', () => {
    expect(loadConfig({ HERALD_SENDER_LEASE_MS: '5000', HERALD_SENDER_MAX_CHUNK_STARTS: '3' })).to.include({ senderLeaseMs: 5000, senderMaxChunkStarts: 3 });
  });

  it('still reads the JetStream-era names of existing installs and the chart', () => {
    expect(loadConfig({ HERALD_SENDER_ACK_WAIT_MS: '5000', HERALD_SENDER_MAX_DELIVER: '3' })).to.include({ senderLeaseMs: 5000, senderMaxChunkStarts: 3 });
  });

  it('the new name wins when both are set', () => {
    expect(loadConfig({ HERALD_SENDER_LEASE_MS: '7000', HERALD_SENDER_ACK_WAIT_MS: '5000', HERALD_SENDER_MAX_CHUNK_STARTS: '4', HERALD_SENDER_MAX_DELIVER: '3' })).to.include({
      senderLeaseMs: 7000,
      senderMaxChunkStarts: 4,
    });
  });

  it('takes the edges of each range under either name, and refuses one past them naming the variable', () => {
    for (const name of ['HERALD_SENDER_LEASE_MS', 'HERALD_SENDER_ACK_WAIT_MS']) {
      expect(loadConfig({ [name]: '1000' }).senderLeaseMs).to.equal(1000);
      expect(loadConfig({ [name]: '3600000' }).senderLeaseMs).to.equal(3_600_000);
      expect(() => loadConfig({ [name]: '999' })).to.throw(ConfigError, `${name} must be a whole number from 1000 to 3600000, got "999"`);
      expect(() => loadConfig({ [name]: '3600001' })).to.throw(ConfigError, `${name} must be a whole number from 1000 to 3600000`);
    }
    for (const name of ['HERALD_SENDER_MAX_CHUNK_STARTS', 'HERALD_SENDER_MAX_DELIVER']) {
      expect(loadConfig({ [name]: '2' }).senderMaxChunkStarts).to.equal(2);
      expect(loadConfig({ [name]: '100' }).senderMaxChunkStarts).to.equal(100);
      expect(() => loadConfig({ [name]: '1' })).to.throw(ConfigError, `${name} must be a whole number from 2 to 100, got "1"`);
      expect(() => loadConfig({ [name]: '101' })).to.throw(ConfigError, `${name} must be a whole number from 2 to 100`);
    }
  });

  it('refuses a bad old name even when the new one is set (a typo is never silently ignored)', () => {
    expect(() => loadConfig({ HERALD_SENDER_LEASE_MS: '5000', HERALD_SENDER_ACK_WAIT_MS: 'soon' })).to.throw(ConfigError, 'HERALD_SENDER_ACK_WAIT_MS');
  });
});

describe('config: database connections and the session URL (issue 37)', () => {
  it('each role has its pool size; the sender\'s is its own default for its slots unless set', () => {
    expect(loadConfig({})).to.include({ apiDatabaseConnections: 20, controllerDatabaseConnections: 8, senderDatabaseConnections: undefined, databaseSessionUrl: undefined });
    const set = loadConfig({ HERALD_API_DATABASE_CONNECTIONS: '2', HERALD_SENDER_DATABASE_CONNECTIONS: '1000', HERALD_CONTROLLER_DATABASE_CONNECTIONS: '3' });
    expect(set).to.include({ apiDatabaseConnections: 2, senderDatabaseConnections: 1000, controllerDatabaseConnections: 3 });
    for (const name of ['HERALD_API_DATABASE_CONNECTIONS', 'HERALD_SENDER_DATABASE_CONNECTIONS', 'HERALD_CONTROLLER_DATABASE_CONNECTIONS']) {
      expect(() => loadConfig({ [name]: '1' })).to.throw(ConfigError, `${name} must be a whole number from 2 to 1000, got "1"`);
      expect(() => loadConfig({ [name]: '1001' })).to.throw(ConfigError, name);
    }
  });

  it('HERALD_DATABASE_SESSION_URL is a PostgreSQL URL, its password never echoed', () => {
    expect(loadConfig({ HERALD_DATABASE_SESSION_URL: 'postgres://herald@pg:5432/herald' }).databaseSessionUrl).to.equal('postgres://herald@pg:5432/herald');
    expect(() => loadConfig({ HERALD_DATABASE_SESSION_URL: 'mysql://herald:hunter2@pg/herald' }))
      .to.throw(ConfigError, 'HERALD_DATABASE_SESSION_URL must be a postgres:// or postgresql:// URL')
      .that.satisfies((e: Error) => !e.message.includes('hunter2'));
  });
});

describe('config: the egress proxy (HTTPS_PROXY, NO_PROXY)', () => {
  it('reads the upper-case variable first, then the lower-case one, as curl and Go do', () => {
    expect(loadConfig({ HTTPS_PROXY: 'http://a:3128', https_proxy: 'http://b:3128', NO_PROXY: '.svc', no_proxy: '.local' })).to.include({ httpsProxy: 'http://a:3128', noProxy: '.svc' });
    expect(loadConfig({ https_proxy: 'http://b:3128', no_proxy: '.local' })).to.include({ httpsProxy: 'http://b:3128', noProxy: '.local' });
    expect(loadConfig({})).to.include({ httpsProxy: undefined, noProxy: undefined });
  });

  it('refuses a bad value at start, naming the variable it came from and never the password', () => {
    expect(() => loadConfig({ https_proxy: 'https://herald:hunter2@proxy:443' })).to.throw(ConfigError, /^https_proxy must be an http:\/\/ proxy URL/).that.satisfies((e: Error) => !e.message.includes('hunter2'));
    expect(() => loadConfig({ NO_PROXY: '10.0.0.0/40' })).to.throw(ConfigError, /^NO_PROXY: /);
  });

  it('logs the proxy with its credentials masked, even written without a scheme', () => {
    for (const raw of ['http://herald:hunter2@proxy:3128', 'herald:hunter2@proxy:3128']) {
      const logged = JSON.stringify(redactedConfig(loadConfig({ HTTPS_PROXY: raw })));
      expect(logged).to.include('"httpsProxy":"http://***@proxy:3128"').and.not.include('hunter2');
    }
  });
});
