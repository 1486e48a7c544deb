/**
 * The measurement scripts' quick forms that `npm run test:bench-quick` (scripts/bench-quick.mjs) runs, each with
 * the lines and tables it prints and whose figures must be finite (scripts/bench-figures.ts). The patterns follow
 * what each script prints; a script that changes what it prints changes its entry here.
 */
import type { FigureSpec } from './bench-figures.ts';

export interface QuickForm {
  /** The script's name, as a failure names it. */
  name: string;
  /** The command, run in the repository's root. */
  argv: string[];
  /** Needs dist/ (the built page). */
  page: boolean;
  /** Killed after this many seconds (a hang is a failure too). */
  timeoutS: number;
  figures: FigureSpec;
}

const S = '(\\S+)';

/** Every quick form, in the order they run. */
export const QUICK_FORMS: QuickForm[] = [
  {
    name: 'bench:demo (scripts/measure-demo.mjs --quick --runs 2)',
    argv: ['node', 'scripts/measure-demo.mjs', '--quick', '--runs', '2'],
    page: true,
    timeoutS: 240,
    figures: {
      lines: [
        {
          label: 'an evaluation',
          pattern: new RegExp(`^\\s*${S} s  step\\s+${S}  held-out pass@1 ${S} ± ${S}  \\(${S} points\\)$`),
          min: 2,
        },
        {
          label: 'the profile',
          pattern: new RegExp(
            `^profile: ${S} steps in ${S} s: ${S} s/step \\(sampling ${S} s, update ${S} s, verify ${S} s\\); ` +
              `${S} s outside steps`,
          ),
        },
        {
          label: 'the verdict',
          pattern: new RegExp(`not reached in ${S} steps \\(${S} s\\); best ${S} at step ${S} \\(base ${S}\\)$`),
        },
        { label: 'the standard error', pattern: new RegExp(`^largest standard error of one point: ${S}$`) },
        {
          label: 'the verdict over runs',
          pattern: new RegExp(`^demo over ${S} runs: median .+ to a sustained .+; load average ${S} to ${S}$`),
        },
      ],
    },
  },
  {
    name: 'bench:page (scripts/measure-page.mjs --quick)',
    argv: ['node', 'scripts/measure-page.mjs', '--quick'],
    page: true,
    timeoutS: 180,
    figures: {
      lines: ['firstScreenMs', 'shippedOpenSeconds', 'lessonOpenSeconds'].map((k) => ({
        label: k,
        pattern: new RegExp(`^${k}\\s+${S} m?s  goal ${S} m?s  (?:met|NOT MET)  \\(samples (.+)\\)$`),
      })),
    },
  },
  {
    name: 'bench:viewer (scripts/bench-viewer.mjs --quick)',
    argv: ['node', 'scripts/bench-viewer.mjs', '--quick'],
    page: true,
    timeoutS: 240,
    figures: {
      lines: ['trl', 'verl'].flatMap((format) => [
        {
          label: `the ${format} dump`,
          pattern: new RegExp(
            `^viewer 1 MB ${format}: first view ${S} s, step switch ${S} ms, search ${S} s, memory ${S} MB; ` +
              `pandas full read ${S} s$`,
          ),
        },
        {
          label: `the ${format} dump's findings through rlvr view`,
          pattern: new RegExp(`^findings 1 MB ${format}: ${S} s, ${S} findings, memory ${S} MB$`),
        },
        {
          label: `the ${format} dump's search and findings in the page`,
          pattern: new RegExp(
            `^in page 1 MB ${format}: search ${S} s, findings ${S} s, ${S} findings, memory ${S} MB$`,
          ),
        },
      ]),
    },
  },
  {
    name: 'the Llama page run (scripts/llama-page-run.mjs --quick)',
    argv: ['node', 'scripts/llama-page-run.mjs', '--quick'],
    page: true,
    timeoutS: 420,
    figures: {
      tables: [
        {
          label: 'the results table',
          header: /^\| seed \| page pass@1 before → after \|/,
          required: ['seed', 'page pass@1 before → after', 'gain (page)', 'rlvr eval pass@1 after', 'wall time'],
        },
      ],
    },
  },
  // Without the browser's WASM engine: on this machine under load its load into the bench page grew the bench's Node
  // process to its 4 GB heap limit (tiny at --threads 1, and smollm2-135m at 2 layers) and never finished.
  {
    name: 'rlvr bench, tiny and small (node scripts/rlvr.mjs bench, one round)',
    argv: [
      'node',
      'scripts/rlvr.mjs',
      'bench',
      '--presets',
      'tiny,small',
      '--engines',
      'node,torch',
      '--threads',
      '1',
      '--reps',
      '1',
      '--no-profile',
      '--out',
      'test-results/bench-rlvr-quick.json',
    ],
    page: false,
    timeoutS: 480,
    figures: {
      lines: [
        {
          label: 'the matmul kernels',
          pattern: /GFLOP\/s of onnxruntime-node \(MLAS\) vs PyTorch \(OpenBLAS\): (.+)\. Most of an update/,
        },
        { label: 'the wall time', pattern: new RegExp(`^Wall time: ${S} s\\. Results:`) },
      ],
      tables: [
        {
          label: 'the tiny and small presets',
          header: /^\| preset \| engine \| sampling tok\/s \| update tok\/s \| step s \|$/,
          required: ['sampling tok/s', 'update tok/s', 'step s'],
        },
        {
          label: 'the ratios to PyTorch',
          header: /^\| preset \| CPU threads \| update vs PyTorch/,
          required: ['update vs PyTorch (goal ≥ 1.5)', 'sampling vs PyTorch (goal ≥ 1.5)', 'step time PyTorch / ours'],
          optional: ['WASM step / node step (goal ≤ 1.5)'],
        },
      ],
    },
  },
  {
    // 2 of SmolLM2-135M's 30 layers: all 30 took 427 s a round here (load average 9.8).
    name: 'rlvr bench, smollm2-135m (node scripts/rlvr.mjs bench, one round, 2 of its 30 layers)',
    argv: [
      'node',
      'scripts/rlvr.mjs',
      'bench',
      '--presets',
      'smollm2-135m',
      '--layers',
      '2',
      '--engines',
      'node,torch',
      '--threads',
      '1',
      '--reps',
      '1',
      '--no-profile',
      '--out',
      'test-results/bench-llama-quick.json',
    ],
    page: false,
    timeoutS: 300,
    figures: {
      lines: [
        { label: 'the wall time', pattern: new RegExp(`^Wall time: ${S} s\\. Results:`) },
        { label: 'the matmul kernels', pattern: /^The matmul kernels at this shape \(.+\), \S+ threads?: (.+)\.$/ },
        {
          label: "the update's matmul FLOPs",
          pattern: new RegExp(`^One update's matmuls: ${S} GFLOP \\(the forward ${S},`),
        },
      ],
      tables: [
        {
          label: 'the smollm2-135m preset',
          header: /^\| engine \| sampling tok\/s \| GRPO update s \| update peak RSS MiB \|/,
          required: ['sampling tok/s', 'GRPO update s', 'update peak RSS MiB'],
          optional: ['sampling vs PyTorch', 'update speed vs PyTorch', 'update peak memory vs PyTorch'],
        },
      ],
    },
  },
  {
    name: 'bench:start (scripts/measure-start.mjs, one run of the page npm start serves)',
    argv: [
      'node',
      'scripts/measure-start.mjs',
      '--runs',
      '1',
      '--steps',
      '1',
      '--servers',
      'start',
      '--out',
      'test-results/start-quick.json',
    ],
    page: true,
    timeoutS: 240,
    figures: {
      lines: [
        {
          label: 'the run',
          pattern: new RegExp(`^start run 1: longest task ${S} ms, Pause ${S} ms, ${S} frames/s, load ${S}$`),
        },
      ],
    },
  },
  {
    name: 'cold links (scripts/measure-links.mjs, one lesson and the shipped recording)',
    argv: [
      'node',
      'scripts/measure-links.mjs',
      '--runs',
      '1',
      '--lessons',
      'why-groups',
      '--out',
      'test-results/links-quick.json',
    ],
    page: true,
    timeoutS: 240,
    figures: {
      lines: ['\\?lesson=why-groups', '\\?run=records/sat-grpo-30\\.rlvr\\.gz'].map((link) => ({
        label: link.replaceAll('\\', ''),
        pattern: new RegExp(`^${link} run 1: ${S} ms, load ${S}$`),
      })),
    },
  },
  {
    name: 'time estimates (scripts/measure-estimates.mjs, a 2-step run)',
    argv: ['node', 'scripts/measure-estimates.mjs', '--steps', '2', '--out', 'test-results/estimates-quick.json'],
    page: true,
    timeoutS: 300,
    figures: {
      lines: [
        {
          label: 'the estimate against the time',
          pattern: new RegExp(
            `^2 steps: the page said "2 steps: about ${S} (?:s|min) on this device"; ` +
              `it took ${S} s \\(ratio ${S}, load ${S}\\)$`,
          ),
        },
      ],
    },
  },
  {
    name: 'viewer memory (scripts/measure-viewer-memory.mjs, 2 runs opened and closed)',
    argv: [
      'node',
      'scripts/measure-viewer-memory.mjs',
      '--runs',
      '2',
      '--out',
      'test-results/viewer-memory-quick.json',
    ],
    page: true,
    timeoutS: 180,
    figures: {
      lines: [
        {
          label: 'memory and workers, start and end',
          pattern: new RegExp(
            `^viewer memory: 2 runs opened and closed: ${S} MB and ${S} workers at the start, ` +
              `${S} MB and ${S} workers at the end, load ${S}$`,
          ),
        },
      ],
    },
  },
];
