// The stored request's JSON paths: the SQL each builder writes (the type check holds the field
// names to SendRequest; test/api/list.test.ts and the dashboard suites read real rows through them).
import { expect } from 'chai';
import { requestHasSql, requestJsonSql, requestTextSql } from './request.js';

describe('stored request paths', () => {
  const cases: Array<[string, string, string]> = [
    ['a field as JSON', requestJsonSql('request', 'contents'), "request->'contents'"],
    ['a field of a field as JSON', requestJsonSql('request', 'target', 'groups'), "request->'target'->'groups'"],
    ['a field as text', requestTextSql('request', 'name'), "request->>'name'"],
    ['a field of a field as text', requestTextSql('request', 'liveActivity', 'activityId'), "request->'liveActivity'->>'activityId'"],
    ['a field of a target kind', requestTextSql('request', 'target', 'segment'), "request->'target'->>'segment'"],
    ['through a table alias', requestTextSql('s.request', 'target', 'pushToStart'), "s.request->'target'->>'pushToStart'"],
    ['whether a field is there', requestHasSql('s.request', 'timezoneDelivery'), "(s.request ? 'timezoneDelivery')"],
  ];
  for (const [name, sql, expected] of cases) it(name, () => expect(sql).to.equal(expected));

  it('takes only the fields SendRequest has (tsc fails on an unused @ts-expect-error)', () => {
    // @ts-expect-error: no field `title` in SendRequest
    expect(requestTextSql('request', 'title')).to.be.a('string');
    // @ts-expect-error: no target kind has `segments`
    expect(requestJsonSql('request', 'target', 'segments')).to.be.a('string');
  });
});
