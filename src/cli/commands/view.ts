import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunCatalog } from '../../node/run-catalog.ts';
import { ServedFolder, ServedFolderError } from '../../node/served-folder.ts';
import { endFindingsThreads } from '../../node/view-findings.ts';
import { endSearchThreads } from '../../node/view-search.ts';
import { createViewServer, listenForView } from '../../node/view-server.ts';
import { detectRuns, openRun } from '../../runs/index.ts';
import { flag, flagUsage, parseFlags, UsageError, type FlagTable } from '../args.ts';
import type { Command } from './command.ts';

/** The port `rlvr view` tries first (TensorBoard's is 6006); taken, it tries the next ones. */
export const DEFAULT_VIEW_PORT = 6007;
/** How many ports after the default it tries before giving up. */
const PORTS_TRIED = 20;

const distDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist');

const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

const FLAGS: FlagTable = {
  port: {
    value: 'P',
    help:
      `the port (default ${DEFAULT_VIEW_PORT}, or the first free one of the ${PORTS_TRIED} after it;\n` +
      'a --port given that is taken is an error)',
  },
  host: {
    value: 'H',
    help:
      'the address to listen on (default 127.0.0.1, this machine only). Any other makes the runs\n' +
      'readable from the network: on a remote GPU box prefer `ssh -L 6007:127.0.0.1:6007 box`.',
  },
};

export const viewCommand: Command = {
  name: 'view',
  summary: 'serve the run viewer over the runs in folders (TRL, veRL, JSONL, records), like tensorboard --logdir',
  help: [
    'rlvr view PATH... [--port P] [--host H]',
    '  Serves the built page (dist/: run `npm run build` first) and, read-only, every run found under the',
    '  folders PATH...: TRL output_dirs, veRL rollout_data_dirs, the documented JSONL and run records.',
    '  Runs written into a served folder, and new steps of a run still being written, appear as the page',
    '  asks again; nothing outside the named folders is served. When ready it prints one line:',
    '    serving N runs at http://HOST:PORT/',
    '  Open that address, or http://HOST:PORT/?view=NAME&step=S for a run at a step. Ctrl-C stops it.',
    flagUsage(FLAGS),
    '  GET /runs.json lists [{"name","format","steps"}]; /runs/NAME/files.json and /runs/NAME/file/PATH',
    "  (with Range) serve a run's files; /runs/NAME/findings.json its findings (rlvr findings --json's objects).",
    '  Exit codes: 2 for a PATH that is not a folder or bad flags.',
  ].join('\n'),
  modes: [{ argv: ['PATH'], flags: FLAGS }],
  async run(argv) {
    const a = parseFlags(argv, FLAGS);
    if (a.positional.length === 0) throw new UsageError('give at least one folder to serve');
    const host = flag(a, 'host') ?? '127.0.0.1';
    const portFlag = flag(a, 'port');
    if (portFlag !== undefined && !(/^\d+$/.test(portFlag) && Number(portFlag) >= 1 && Number(portFlag) <= 65535)) {
      throw new UsageError(`--port must be a port number from 1 to 65535, got "${portFlag}"`);
    }
    const folders: ServedFolder[] = [];
    for (const path of a.positional) {
      try {
        folders.push(await ServedFolder.open(path));
      } catch (err) {
        if (err instanceof ServedFolderError) {
          process.stderr.write(`rlvr view: ${err.message}\n`);
          return 2;
        }
        throw err;
      }
    }
    if (!existsSync(resolve(distDir, 'index.html'))) {
      process.stderr.write(
        `rlvr view: the page is not built (${distDir}/index.html is missing): run \`npm run build\` first, ` +
          'then rlvr view again\n',
      );
      return 1;
    }
    const catalog = new RunCatalog(folders, { detectRuns, openRun });
    const loopback = isLoopback(host);
    const server = createViewServer({ catalog, dist: await ServedFolder.open(distDir), loopbackOnly: loopback });

    // A port given with --port is that port or an error; the default moves on to a free one.
    const wanted = portFlag !== undefined ? Number(portFlag) : DEFAULT_VIEW_PORT;
    let port: number;
    try {
      port = await listenForView(server, host, wanted, portFlag !== undefined ? 0 : PORTS_TRIED);
    } catch (err) {
      process.stderr.write(`rlvr view: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    if (port !== wanted) process.stderr.write(`rlvr view: port ${wanted} is in use; using ${port}\n`);
    if (!loopback) {
      const served = folders.map((f) => f.given).join(', ');
      process.stderr.write(
        `rlvr view: warning: listening on ${host}, not loopback: the runs in ${served} are readable by anyone ` +
          'on the network who can reach this machine\n',
      );
    }
    let runs;
    try {
      runs = await catalog.runs();
    } catch (err) {
      server.close();
      throw err;
    }
    // What the readers passed over (a folder with nothing recognisable, a file that is not a run), on stderr.
    for (const p of catalog.problems()) process.stderr.write(`rlvr view: ${p.message}\n`);
    process.stdout.write(`serving ${runs.length} runs at http://${urlHost(host)}:${port}/\n`);

    await new Promise<void>((done) => {
      const stop = () => {
        endSearchThreads(); // a search under way stops; its answer's connection is closed just below
        endFindingsThreads();
        server.close(() => done());
        server.closeAllConnections();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return 0;
  },
};
