import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { SENDS_CRD_FILES, sendsCrdYaml } from '../../tools/crd/sends-crd.js';

describe('Send CRD', () => {
  for (const file of SENDS_CRD_FILES) {
    it(`${file} is the one generated from the send body's schema (npx tsx tools/crd/write-sends-crd.ts)`, () => {
      expect(readFileSync(file, 'utf8')).to.equal(sendsCrdYaml());
    });
  }
});
