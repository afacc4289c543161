// The statuses and their groups: every status is final or running (never both, never neither), the
// groups hold what the contract's states say, and the SQL fragments say the same as the checks.
// test/delivery/send-states-schema.test.ts holds them against the database's constraint and indexes.
import { expect } from 'chai';
import {
  isFinalStatus,
  isRunningStatus,
  isUnderwayStatus,
  deliveringSql,
  SEND_STATUSES,
  statusesIn,
  statusInSql,
  unplannedSql,
  type SendStatus,
  type StatusGroup,
} from './states.js';

describe('send states', () => {
  it('are the five statuses of the contract, in the documented order', () => {
    expect(SEND_STATUSES).to.deep.equal(['queued', 'sending', 'scheduled', 'approved', 'draft']);
  });

  // Written out, not derived: a status added to the table without a row here fails.
  const EXPECTED: Record<StatusGroup, SendStatus[]> = {
    final: ['approved', 'draft'],
    running: ['queued', 'sending', 'scheduled'],
    underway: ['queued', 'sending'],
    sent: ['queued', 'sending', 'approved'],
  };
  for (const [group, statuses] of Object.entries(EXPECTED) as [StatusGroup, SendStatus[]][]) {
    it(`the ${group} group holds ${statuses.join(', ')}`, () => {
      expect(statusesIn(group)).to.deep.equal(statuses);
      expect(statusInSql('s.status', group)).to.equal(`s.status IN (${statuses.map((s) => `'${s}'`).join(', ')})`);
    });
  }

  it('puts every status in exactly one of final and running; underway ones are running', () => {
    for (const s of SEND_STATUSES) {
      expect([isFinalStatus(s), isRunningStatus(s)].filter(Boolean), s).to.have.length(1);
      if (isUnderwayStatus(s)) expect(isRunningStatus(s), s).to.equal(true);
    }
    const grouped = new Set([...statusesIn('final'), ...statusesIn('running')]);
    expect([...grouped].sort()).to.deep.equal([...SEND_STATUSES].sort());
  });

  it('the checks agree with the groups', () => {
    for (const s of SEND_STATUSES) {
      expect(isFinalStatus(s), s).to.equal(statusesIn('final').includes(s));
      expect(isRunningStatus(s), s).to.equal(statusesIn('running').includes(s));
      expect(isUnderwayStatus(s), s).to.equal(statusesIn('underway').includes(s));
    }
  });

  it('writes the unplanned condition with and without a table alias', () => {
    expect(unplannedSql()).to.equal("chunks_total IS NULL AND status IN ('queued', 'sending')");
    expect(unplannedSql('u')).to.equal("u.chunks_total IS NULL AND u.status IN ('queued', 'sending')");
  });

  it('writes the delivering condition (underway, or a time zone send with planned chunks)', () => {
    expect(deliveringSql('s')).to.equal(
      "(s.status IN ('queued', 'sending') OR (s.status = 'scheduled' AND s.chunks_total IS NOT NULL))",
    );
  });
});
