import { expect } from 'chai';
import { classifySend } from './notifications.js';

describe('classifySend: the buckets a send body draws', () => {
  it('a single tag condition in filters is the tag audience, as the tag field is', () => {
    const viaFilters = classifySend({ filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }] });
    expect(viaFilters).to.deep.equal(classifySend({ tag: { key: 'plan', relation: '=', value: 'gold' } }));
    expect(viaFilters.audience).to.equal('tag:["plan","=","gold"]');
  });

  it('a single condition on another field is not read as a tag: each such audience has its own key', () => {
    const language = classifySend({ filters: [{ field: 'language', relation: '=', value: 'en' }] });
    const tag = classifySend({ filters: [{ field: 'tag', key: 'lang', relation: '=', value: 'en' }] });
    expect(language.bucket).to.equal('broadcast');
    expect(language.audience).to.equal('filters:[{"field":"language","relation":"=","value":"en"}]');
    expect(language.audience).to.not.equal(tag.audience);
  });

  it('several segments: one audience per set of names, in any order, aliases read; one name keeps its own', () => {
    const union = classifySend({ included_segments: ['Gold', 'Beta'] });
    expect(union).to.deep.equal({ bucket: 'broadcast', audience: 'segments:["Beta","Gold"]' });
    expect(classifySend({ included_segments: ['Beta', 'Gold', 'Beta'] })).to.deep.equal(union);
    expect(classifySend({ included_segments: ['Gold'] })).to.deep.equal({ bucket: 'broadcast', audience: 'segment:Gold' });
    // Two names of one segment are that segment's bucket.
    expect(classifySend({ included_segments: ['All', 'Subscribed Users'] })).to.deep.equal(classifySend({ included_segments: ['Subscribed Users'] }));
    expect(classifySend({ included_segments: ['Gold', 7] })).to.deep.equal({ bucket: 'broadcast' }); // refused later by the rules
  });

  it('lists draw send; several targets draw broadcast with no audience', () => {
    expect(classifySend({ include_external_ids: ['a'] })).to.deep.equal({ bucket: 'send' });
    expect(classifySend({ included_segments: ['Subscribed Users'], tag: { key: 'a', relation: 'exists' } })).to.deep.equal({ bucket: 'broadcast' });
  });
});
