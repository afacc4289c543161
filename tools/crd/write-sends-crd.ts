// Rewrites the Send CRD's two committed copies from the send body's one schema:
//   npx tsx tools/crd/write-sends-crd.ts
import { writeFileSync } from 'node:fs';
import { SENDS_CRD_FILES, sendsCrdYaml } from './sends-crd.js';

const yaml = sendsCrdYaml();
for (const file of SENDS_CRD_FILES) writeFileSync(file, yaml);
console.log(`wrote ${SENDS_CRD_FILES.join(' and ')}`);
