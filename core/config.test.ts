import { expect } from 'chai';
import { ConfigError, loadConfig } from './config.js';

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
