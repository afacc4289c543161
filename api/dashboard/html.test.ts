// The dashboard's HTML template: every interpolated value escaped, nested templates kept.
import { expect } from 'chai';
import { html, toString } from './html.js';

describe('dashboard html', () => {
  it('escapes text and attributes, keeps nested html, drops null, undefined and false', () => {
    const evil = `<script>alert("x")</script>' onload='`;
    const out = toString(html`<p title="${evil}">${evil}${html`<b>${'&'}</b>`}${null}${undefined}${false}${[1, html`<i>2</i>`]}</p>`);
    expect(out).to.equal(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;<b>&amp;</b>1<i>2</i></p>',
    );
  });
});
