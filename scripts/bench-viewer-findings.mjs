// The parts of `npm run bench:viewer` (scripts/bench-viewer.mjs) that measure a run's findings, through
// `rlvr view` and in the page, and the page's search and memory, which both use.
import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/lib.mjs';

/**
 * The page's memory, its workers included: performance.measureUserAgentSpecificMemory(), which needs a
 * cross-origin isolated page (rlvr view sends COOP/COEP) and, with ForceEagerMeasureMemory, answers at once.
 */
export async function pageMb(page) {
  const bytes = await page.evaluate(async () => (await performance.measureUserAgentSpecificMemory()).bytes);
  return bytes / 1e6;
}

export const seconds = (t0) => (performance.now() - t0) / 1000;

/** A text search over every step, from the click until the page says it is done. */
export async function searchOnce(page) {
  await page.fill('[data-testid="viewer-search-text"]', 'satisfied');
  const t0 = performance.now();
  await page.click('[data-testid="viewer-search-run"]');
  await page.waitForSelector('[data-testid="viewer-search-status"][data-running="false"][data-count]', {
    timeout: 600_000,
  });
  const search = seconds(t0);
  return { search, status: await page.locator('[data-testid="viewer-search-status"]').textContent() };
}

/** A field of /proc/PID/status (VmRSS, VmHWM), in MB. */
function procMb(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]) / 1000;
}

/** `rlvr view`'s findings of the run, cold: the first findings request since the server started. */
export async function servedFindings(url, name, child) {
  const before = procMb(child.pid, 'VmRSS');
  const t0 = performance.now();
  const res = await fetch(`${url}runs/${encodeURIComponent(name)}/findings.json`);
  if (!res.ok) throw new Error(`findings.json of ${name}: ${res.status} ${await res.text()}`);
  const findings = await res.json();
  const s = seconds(t0);
  return { findings_s: s, findings: findings.length, findings_memory_mb: procMb(child.pid, 'VmHWM') - before };
}

const sizeLabel = (size) => (size >= 1000 ? `${size / 1000} GB` : `${size} MB`);

/**
 * The run opened in the page as a folder (the file input, as a person picks one), no server reading it: a
 * search over every step, then its findings, each in the page's reader workers, from the click until done.
 */
export async function measureInPage(url, dir) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--enable-blink-features=ForceEagerMeasureMemory'],
  });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    await page.getByRole('tab', { name: 'Run viewer' }).click();
    await page.setInputFiles('[data-testid="run-folder-input"]', dir);
    await page.waitForSelector('[data-testid="viewer-completion"]', { timeout: 600_000 });
    let peak = await pageMb(page);
    const { search, status } = await searchOnce(page);
    peak = Math.max(peak, await pageMb(page));
    const t0 = performance.now();
    await page.click('[data-testid="viewer-findings-run"]');
    await page.waitForSelector('[data-testid="viewer-findings-count"]', { timeout: 600_000 });
    const findings_s = seconds(t0);
    peak = Math.max(peak, await pageMb(page));
    const findings = await page.locator('[data-testid="viewer-finding"]').count();
    return {
      page_search_s: search,
      page_search_status: status,
      page_findings_s: findings_s,
      page_findings: findings,
      page_memory_mb: peak,
    };
  } finally {
    await browser.close();
  }
}

/** The findings lines of one dump: through `rlvr view` and in the page (`servedFindings`, `measureInPage`). */
export function printFindings(size, format, f, p) {
  console.log(
    `findings ${sizeLabel(size)} ${format}: ${f.findings_s.toFixed(2)} s, ${f.findings} findings, memory ` +
      `${f.findings_memory_mb.toFixed(0)} MB`,
  );
  console.log(
    `in page ${sizeLabel(size)} ${format}: search ${p.page_search_s.toFixed(2)} s, findings ` +
      `${p.page_findings_s.toFixed(2)} s, ${p.page_findings} findings, memory ${p.page_memory_mb.toFixed(0)} MB`,
  );
}
