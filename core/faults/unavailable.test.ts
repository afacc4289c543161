// One case per class of error: outages by SQLSTATE class, errno, the NATS client's classes and the
// adapters' DependencyUnavailableError; bugs (JavaScript's own classes) and bad statements never,
// whatever their message says.
import { expect } from 'chai';
import pg from 'pg';
import { errors as natsErrors } from '@nats-io/transport-node';
import { DependencyUnavailableError, isProgrammingError, isUnavailable } from './unavailable.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const dbError = (code: string) => Object.assign(new pg.DatabaseError('refused', 0, 'error'), { code });

describe('isUnavailable: outages by class and code, never by message', () => {
  it('PostgreSQL: SQLSTATE classes 08 and 53, and 57P01–57P03, 57014', () => {
    for (const code of ['08006', '08001', '08P01', '53300', '53100', '53200', '57P01', '57P02', '57P03', '57014']) expect(isUnavailable(dbError(code)), code).to.equal(true);
  });

  it('PostgreSQL: bad statements are not outages', () => {
    for (const code of ['23505', '42P01', '22P02', '40001', '57P04', '0A000']) expect(isUnavailable(dbError(code)), code).to.equal(false);
  });

  it('sockets: errno codes, also inside an AggregateError or a cause', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']) expect(isUnavailable(coded(code)), code).to.equal(true);
    expect(isUnavailable(new AggregateError([coded('ECONNREFUSED')], ''))).to.equal(true);
    expect(isUnavailable(new Error('wrapped', { cause: coded('ECONNRESET') }))).to.equal(true);
    expect(isUnavailable(coded('ENOENT'))).to.equal(false);
  });

  it('NATS: the client error classes of a closed, draining or silent connection', () => {
    for (const e of [new natsErrors.ClosedConnectionError(), new natsErrors.DrainingConnectionError(), new natsErrors.NoRespondersError('x'), new natsErrors.TimeoutError()]) {
      expect(isUnavailable(e), e.name).to.equal(true);
    }
    expect(isUnavailable(new natsErrors.InvalidSubjectError('a b'))).to.equal(false);
  });

  it('an adapter’s DependencyUnavailableError', () => {
    expect(isUnavailable(new DependencyUnavailableError('NATS', 'not connected'))).to.equal(true);
  });

  it('a message is never enough: text that says timeout or disconnect is not an outage', () => {
    expect(isUnavailable(new Error('timeout'))).to.equal(false);
    expect(isUnavailable(new Error('Connection terminated unexpectedly'))).to.equal(false);
    expect(isUnavailable(new Error('client disconnected'))).to.equal(false);
  });

  it('programming errors are never outages, not even with an outage code or cause', () => {
    const bugs = [new TypeError("Cannot read properties of undefined (reading 'timeoutMs')"), new RangeError('Offset is outside the bounds'), new ReferenceError('x is not defined'), new SyntaxError('Unexpected token')];
    for (const bug of bugs) {
      expect(isProgrammingError(bug), bug.name).to.equal(true);
      expect(isUnavailable(bug), bug.name).to.equal(false);
      expect(isUnavailable(Object.assign(bug, { code: 'ECONNRESET' })), `${bug.name} with a code`).to.equal(false);
    }
    expect(isUnavailable(undefined)).to.equal(false);
    expect(isUnavailable('ECONNREFUSED')).to.equal(false);
  });
});
