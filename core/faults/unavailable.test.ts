import { expect } from 'chai';
import { isUnavailable } from './unavailable.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isUnavailable: outages, not bugs', () => {
  it('recognises PostgreSQL outages by SQLSTATE and pg messages', () => {
    for (const code of ['08006', '08001', '57P01', '57P03', '57014', '53300']) expect(isUnavailable(pgError(code)), code).to.equal(true);
    expect(isUnavailable(new Error('Connection terminated unexpectedly'))).to.equal(true);
    expect(isUnavailable(new Error('timeout exceeded when trying to connect'))).to.equal(true);
  });

  it('recognises socket errors, also inside an AggregateError or a cause', () => {
    expect(isUnavailable(pgError('ECONNREFUSED'))).to.equal(true);
    expect(isUnavailable(new AggregateError([pgError('ECONNREFUSED')], ''))).to.equal(true);
    expect(isUnavailable(new Error('wrapped', { cause: pgError('ECONNRESET') }))).to.equal(true);
  });

  it('recognises NATS and Redis connection errors', () => {
    expect(isUnavailable(Object.assign(new Error('closed'), { name: 'ClosedConnectionError' }))).to.equal(true);
    expect(isUnavailable(new Error('NATS is not connected'))).to.equal(true);
    expect(isUnavailable(new Error('Connection is closed.'))).to.equal(true);
  });

  it('leaves bad statements and bugs alone', () => {
    for (const code of ['23505', '42P01', '22P02', '40001']) expect(isUnavailable(pgError(code, 'bad')), code).to.equal(false);
    expect(isUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).to.equal(false);
    expect(isUnavailable(undefined)).to.equal(false);
    expect(isUnavailable('ECONNREFUSED')).to.equal(false);
  });
});
