// The report's delivery chart: labelled axes with values, and a send done within one second
// still drawn over that second (never an empty box).
import { expect } from 'chai';
import { deliveryChartMarkup } from './chart.js';

const texts = (svg: string, cls: string) => [...svg.matchAll(new RegExp(`<text class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]);

describe('dashboard delivery chart', () => {
  it('draws a send finished within one second over that second, with its values on both axes', () => {
    const svg = deliveryChartMarkup([{ at: 1000, sent: 1200, failed: 0 }], 1000);
    expect(texts(svg, 'x-value')).to.deep.equal(['0 s', '1 s']);
    expect(texts(svg, 'y-value')).to.deep.equal(['0', '500', '1,000', '1,500']);
    expect(texts(svg, 'axis-title')).to.deep.equal(['Time since the send started (seconds)', 'Devices']);
    expect(texts(svg, 'end-value')).to.deep.equal(['1,200 sent']);
    const bar = /<rect class="bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!;
    expect(Number(bar[2])).to.be.greaterThan(500); // the bar fills the one second: the whole plot
    expect(svg).to.contain('1,200 devices sent, at most 1,200 in one second.');
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
