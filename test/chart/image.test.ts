// The image `make image` builds (no container engine runs here, so the Dockerfile is checked as
// text): every path it copies from the build context exists and is not left out by
// .dockerignore, and the roles the chart runs are the image's entry point's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { repoRoot } from './helm.js';

describe('the image (Dockerfile, make image)', () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

  it('copies only paths that exist in the build context', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].trim().split(/\s+/));
    expect(sources).to.include.members(['package.json', 'package-lock.json', 'api', 'core', 'sender', 'controller', 'cli', 'bin']);
    for (const source of sources) {
      expect(existsSync(join(repoRoot, source)), `${source} exists`).to.equal(true);
      expect(ignored, `${source} is not in .dockerignore`).to.not.include(source);
    }
  });

  it('runs bin/herald.js as uid 1000, the chart\'s securityContext', () => {
    expect(dockerfile).to.match(/^ENTRYPOINT \["node", "bin\/herald.js"\]$/m);
    expect(dockerfile).to.match(/^USER 1000:1000$/m);
    const values = readFileSync(join(repoRoot, 'charts/herald/values.yaml'), 'utf8');
    expect(values).to.match(/runAsUser: 1000/);
  });
});
