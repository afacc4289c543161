// The App CRD is written by hand (crds/ and the chart's copy): its appId must be the api's UUID
// (core/formats/uuid.ts), so the cluster refuses exactly the ids the api would.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';
import { UUID_PATTERN } from '../../core/formats/uuid.js';
import { EVENT_KINDS } from '../../core/events/kinds.js';
import { DESTINATION_NAME_PATTERN, MAX_DESTINATIONS } from '../../core/events/destinations.js';

const FILES = ['crds/apps.herald.dev.yaml', 'charts/herald/crds/apps.herald.dev.yaml'];

describe('App CRD formats', () => {
  for (const file of FILES) {
    it(`${file}: spec.appId has the UUID pattern of core/formats/uuid.ts`, () => {
      const crd = parse(readFileSync(file, 'utf8'));
      const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      expect(spec.properties.appId.pattern).to.equal(UUID_PATTERN);
    });
    it(`${file}: spec.events.destinations[] names the kinds of core/events/kinds.ts and its name rule`, () => {
      const crd = parse(readFileSync(file, 'utf8'));
      const item = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.events.properties.destinations.items;
      expect(item.properties.kinds.items.enum).to.deep.equal([...EVENT_KINDS]);
      expect(item.properties.name.pattern).to.equal(DESTINATION_NAME_PATTERN);
      expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.events.properties.destinations.maxItems).to.equal(MAX_DESTINATIONS);
    });
  }
});
