#!/usr/bin/env node
// `npm run test:bench-quick`: every measurement script in its quick form (scripts/bench-quick-forms.ts), one after
// the other, each alone on the machine, so that a refactor that breaks one fails the tests. Each must exit 0 and
// print every figure of its quick form as a finite number (scripts/bench-figures.ts); what the figures are is not
// checked. The page's scripts need dist/: reused when it is newer than every source file, else built (`vite
// build`, as test:e2e does just before this in `npm test`).
// Exits 1 naming each script that failed, with why; prints each script's time. Arguments: names to run only those
// quick forms (a part of the name, e.g. `bench:demo`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

const ROOT = join(import.meta.dirname, '..');
register();
const { QUICK_FORMS } = await import(new URL('./bench-quick-forms.ts', import.meta.url).href);
const { figureProblems } = await import(new URL('./bench-figures.ts', import.meta.url).href);

const only = process.argv.slice(2);
const forms = QUICK_FORMS.filter((f) => !only.length || only.some((o) => f.name.includes(o)));
if (!forms.length) {
  console.error(`bench-quick: no quick form named ${only.join(', ')}`);
  process.exit(2);
}

/** The newest modification time under the folders and files vite build reads (node_modules and tests aside). */
function newestSource() {
  let newest = 0;
  const visit = (p) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const e of readdirSync(p)) visit(join(p, e));
    else if (!/\.test\.tsx?$/.test(p)) newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'workers', 'public', 'index.html', 'vite.config.ts', 'package-lock.json'])
    if (existsSync(join(ROOT, p))) visit(join(ROOT, p));
  return newest;
}

if (forms.some((f) => f.page)) {
  const built = join(ROOT, 'dist/index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource()) console.log('# bench-quick: dist/ is fresh');
  else {
    console.log('# bench-quick: dist/ is missing or older than the sources: vite build');
    const r = spawnSync('npx', ['vite', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`bench-quick: vite build failed (exit ${r.status ?? r.signal})`);
      process.exit(1);
    }
  }
}

/** Runs one quick form, its output shown as it comes and kept; resolves with its exit code, stdout and stderr. */
function run(form) {
  return new Promise((ok) => {
    const child = spawn(form.argv[0], form.argv.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      process.stderr.write(d);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, form.timeoutS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      ok({ code, signal, timedOut, stdout, stderr });
    });
  });
}

/** The script's own last word on stderr, if it said one (its error message), cut to one line. */
function lastError(stderr) {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /error|:/i.test(l) && !l.startsWith('at '))
    .at(-1);
  return line ? `: ${line.slice(0, 300)}` : '';
}

const results = [];
for (const form of forms) {
  console.log(`\n# bench-quick: ${form.name}: ${form.argv.join(' ')}`);
  const t0 = Date.now();
  const r = await run(form);
  const seconds = (Date.now() - t0) / 1000;
  const problems = r.timedOut
    ? [`still running after ${form.timeoutS} s: killed`]
    : r.code !== 0
      ? [`exited with ${r.code ?? r.signal}${lastError(r.stderr)}`]
      : figureProblems(r.stdout, form.figures);
  results.push({ name: form.name, seconds, problems });
}

console.log('\n# bench-quick: each figure printed a finite number?');
for (const { name, seconds, problems } of results) {
  console.log(`${problems.length ? 'FAILED' : 'ok    '} ${seconds.toFixed(0).padStart(4)} s  ${name}`);
  for (const p of problems) console.log(`         ${p}`);
}
const failed = results.filter((r) => r.problems.length);
const total = results.reduce((a, r) => a + r.seconds, 0);
console.log(`# bench-quick: ${results.length - failed.length} of ${results.length} passed in ${total.toFixed(0)} s`);
if (failed.length) {
  console.error(`bench-quick: FAILED: ${failed.map((r) => r.name).join('; ')}`);
  process.exit(1);
}
