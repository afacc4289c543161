// The HPACK decoder against every RFC 7541 Appendix C vector (C.2 single fields, C.3/C.4
// requests without/with Huffman, C.5/C.6 responses with a 256-byte table and evictions), and
// the request encoder's blocks read back by the decoder.
import { expect } from 'chai';
import { HpackDecoder, HpackError, huffmanDecode, type HeaderList } from './hpack.js';
import { RequestEncoder } from './request-block.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const REQ1: HeaderList = [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']];
const REQ2: HeaderList = [...REQ1, ['cache-control', 'no-cache']];
const REQ3: HeaderList = [[':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']];
const RES1: HeaderList = [[':status', '302'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'], ['location', 'https://www.example.com']];
const RES2: HeaderList = [[':status', '307'], ...RES1.slice(1)];
const RES3: HeaderList = [[':status', '200'], ['cache-control', 'private'], ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'], ['location', 'https://www.example.com'],
  ['content-encoding', 'gzip'], ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1']];

function series(tableSize: number, steps: Array<[string, HeaderList, number]>): void {
  const d = new HpackDecoder(tableSize);
  for (const [block, want, size] of steps) {
    expect(d.decode(hex(block))).to.deep.equal(want);
    expect(d.dynamicTable.size).to.equal(size);
  }
}

describe('core/apns HPACK (RFC 7541 Appendix C)', function () {
  it('C.2: one field each — with indexing, without, never indexed, indexed', function () {
    const d = new HpackDecoder();
    expect(d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'))).to.deep.equal([['custom-key', 'custom-header']]);
    expect(d.dynamicTable.entries).to.deep.equal([['custom-key', 'custom-header']]);
    expect(new HpackDecoder().decode(hex('040c 2f73 616d 706c 652f 7061 7468'))).to.deep.equal([[':path', '/sample/path']]);
    expect(new HpackDecoder().decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74'))).to.deep.equal([['password', 'secret']]);
    expect(new HpackDecoder().decode(hex('82'))).to.deep.equal([[':method', 'GET']]);
  });

  it('C.3: requests without Huffman coding', function () {
    series(4096, [
      ['8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d', REQ1, 57],
      ['8286 84be 5808 6e6f 2d63 6163 6865', REQ2, 110],
      ['8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65', REQ3, 164],
    ]);
  });

  it('C.4: requests with Huffman coding', function () {
    series(4096, [
      ['8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff', REQ1, 57],
      ['8286 84be 5886 a8eb 1064 9cbf', REQ2, 110],
      ['8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf', REQ3, 164],
    ]);
  });

  it('C.5: responses without Huffman coding, 256-byte table, evictions', function () {
    const d = new HpackDecoder(256);
    expect(d.decode(hex(`4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
      2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`))).to.deep.equal(RES1);
    expect(d.dynamicTable.size).to.equal(222);
    expect(d.decode(hex('4803 3330 37c1 c0bf'))).to.deep.equal(RES2);
    expect(d.dynamicTable.entries.map(([n, v]) => `${n}: ${v}`)).to.deep.equal([':status: 307', 'location: https://www.example.com', 'date: Mon, 21 Oct 2013 20:13:21 GMT', 'cache-control: private']);
    expect(d.decode(hex(`88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
      54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49
      553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`))).to.deep.equal(RES3);
    expect(d.dynamicTable.entries.map(([n]) => n)).to.deep.equal(['set-cookie', 'content-encoding', 'date']);
    expect(d.dynamicTable.size).to.equal(215);
  });

  it('C.6: responses with Huffman coding, 256-byte table, evictions', function () {
    series(256, [
      [`4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
        2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`, RES1, 222],
      ['4883 640e ffc1 c0bf', RES2, 222],
      [`88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
        77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
        9587 3160 65c0 03ed 4ee5 b106 3d50 07`, RES3, 215],
    ]);
  });

  it('refuses bad input: Huffman padding that is not EOS, an unknown index, a late size update, a truncated string', function () {
    expect(() => huffmanDecode(hex('00'), 0, 1)).to.throw(HpackError); // '0' then 3 zero bits of padding
    expect(() => new HpackDecoder().decode(hex('be'))).to.throw(HpackError, /no table entry/);
    expect(() => new HpackDecoder().decode(hex('82 3f e1 1f'))).to.throw(HpackError, /size update/);
    expect(() => new HpackDecoder().decode(hex('400a 6375'))).to.throw(HpackError, /truncated/);
  });

  it('the request encoder indexes the batch constants once, then refers to them; a smaller peer table resets it', function () {
    const e = new RequestEncoder();
    const d = new HpackDecoder();
    const fields: HeaderList = [[':authority', 'api.push.apple.com'], ['apns-topic', 'com.example'], ['authorization', `bearer ${'x'.repeat(200)}`]];
    const first = e.prefix('k', fields);
    expect(d.decode(first)).to.deep.equal(fields);
    const second = e.prefix('k', fields);
    expect(second).to.have.length(3); // three one-byte indexed references
    expect(d.decode(second)).to.deep.equal(fields);
    expect(e.prefix('k', fields)).to.equal(second); // cached bytes
    e.setPeerTableSize(100); // the authorization entry no longer fits
    const lead = e.leading() as Buffer;
    expect(lead.toString('hex')).to.equal('203f45'); // size updates to 0, then 100
    expect(e.leading()).to.equal(undefined);
    const third = e.prefix('k', fields);
    expect(d.decode(Buffer.concat([lead, third]))).to.deep.equal(fields);
    expect(d.decode(e.prefix('k', fields))).to.deep.equal(fields);
  });
});
