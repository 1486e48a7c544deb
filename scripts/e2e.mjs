#!/usr/bin/env node
// The e2e suite as CI runs it (`npm run test:e2e`, after `vite build`): playwright.config.ts's `shared`
// and `shared-short` projects in one run on two workers (the short files queued last), then its `alone`
// project on one, with nothing beside it (the config says which files and why). Both runs happen even
// when the first fails; the exit code is the first failure's. Each writes its own report:
// test-results/e2e-report-shared.json and test-results/e2e-report-alone.json.
// Extra arguments go to both runs (e.g. `-g placement`); a project with no test matching is not an error.
import { spawnSync } from 'node:child_process';

let code = 0;
const runs = [
  { name: 'shared', projects: ['shared', 'shared-short'] },
  { name: 'alone', projects: ['alone'] },
];
for (const { name, projects } of runs) {
  const t0 = Date.now();
  const r = spawnSync(
    'npx',
    ['playwright', 'test', ...projects.map((p) => `--project=${p}`), '--pass-with-no-tests', ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, E2E_REPORT: `test-results/e2e-report-${name}.json` },
    },
  );
  console.log(
    `# e2e ${projects.join(' + ')}: exit ${r.status ?? r.signal}, ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
  );
  if (!code && r.status !== 0) code = r.status ?? 1;
}
process.exit(code);
