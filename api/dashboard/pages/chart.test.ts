// The report's delivery chart: labelled axes with values and a table of the same numbers; a send
// done within a few seconds said in a sentence with the seconds its chunks were recorded in.
import { expect } from 'chai';
import { deliveryChartMarkup, SHORT_SEND_SECONDS } from './chart.js';

const texts = (svg: string, cls: string) => [...svg.matchAll(new RegExp(`<text class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);

describe('dashboard delivery chart', () => {
  it('sums up a send done within a few seconds in a sentence and the seconds of its chunks, not a line', () => {
    const one = deliveryChartMarkup([{ at: 1000, sent: 1200, failed: 0 }], 1000);
    expect(one).to.not.contain('<svg');
    expect(one).to.contain('<strong>1,200 devices sent within 1 second of the start</strong>: too quick a send to draw over time.');
    const three = deliveryChartMarkup([{ at: 1000, sent: 500, failed: 2 }, { at: 1003, sent: 198, failed: 0 }], 1000);
    expect(three).to.contain('<strong>698 devices sent, 2 failed, within 4 seconds of the start</strong>');
    expect([...three.matchAll(/<tr><th scope="row">(\d+)<\/th><td class="num">([\d,]+)<\/td><td class="num">(\d+)<\/td><\/tr>/g)].map((m) => m.slice(1))).to.deep.equal([['1', '500', '2'], ['4', '198', '0']]);
    // From SHORT_SEND_SECONDS on, a chart with both axes, and its numbers in a table.
    const drawn = deliveryChartMarkup([{ at: 1000, sent: 600, failed: 0 }, { at: 1000 + SHORT_SEND_SECONDS - 1, sent: 600, failed: 0 }], 1000);
    expect(texts(drawn, 'axis-title')).to.deep.equal(['Time since the send started (seconds)', 'Devices']);
    expect(texts(drawn, 'end-value')).to.deep.equal(['1,200 sent']);
    expect(drawn).to.contain('id="chart-table"').and.contain('<th scope="row">5</th><td class="num">600</td>');
  });

  it('counts seconds from the start, and switches to minutes for long sends', () => {
    const svg = deliveryChartMarkup([{ at: 1010, sent: 5, failed: 0 }, { at: 1011, sent: 7, failed: 1 }], 1000);
    expect(texts(svg, 'x-value')[0]).to.equal('0 s');
    expect(texts(svg, 'x-value').at(-1)).to.equal('12 s');
    expect(texts(svg, 'end-value')).to.deep.equal(['12 sent']);
    const long = deliveryChartMarkup([{ at: 1000, sent: 1, failed: 0 }, { at: 1599, sent: 1, failed: 0 }], 1000);
    expect(long).to.contain('(minutes)');
    expect(texts(long, 'x-value').at(-1)).to.equal('10 min');
  });

  it('says so when nothing was delivered yet', () => {
    expect(deliveryChartMarkup([], 1000)).to.contain('No delivery yet.');
  });
});
