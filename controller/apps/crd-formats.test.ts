// The App CRD is written by hand (crds/ and the chart's copy): its appId must be the api's UUID
// (core/formats/uuid.ts), so the cluster refuses exactly the ids the api would.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { UUID_PATTERN } from '../../core/formats/uuid.js';

const FILES = ['crds/apps.herald.dev.yaml', 'charts/herald/crds/apps.herald.dev.yaml'];

describe('App CRD formats', () => {
  for (const file of FILES) {
    it(`${file}: spec.appId has the UUID pattern of core/formats/uuid.ts`, () => {
      const crd = parse(readFileSync(file, 'utf8'));
      const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      expect(spec.properties.appId.pattern).to.equal(UUID_PATTERN);
    });
  }
});
