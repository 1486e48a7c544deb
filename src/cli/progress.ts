/**
 * A one-line progress bar on stderr (stdout stays clean for JSON). Silent when stderr is not a TTY, except every 10%.
 */
export class ProgressBar {
  private start = Date.now();
  private lastPct = -1;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number, extra = ''): void {
    const frac = this.total ? done / this.total : 1;
    const elapsed = (Date.now() - this.start) / 1000;
    const eta = done > 0 ? (elapsed / done) * (this.total - done) : 0;
    const width = 24;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
    const line =
      `${this.label} [${bar}] ${done}/${this.total} ${elapsed.toFixed(0)}s elapsed, ETA ${eta.toFixed(0)}s ` +
      `${extra}`;
    if (process.stderr.isTTY) {
      process.stderr.write(`\r${line}\x1b[K`);
      if (done >= this.total) process.stderr.write('\n');
    } else {
      const pct = Math.floor(frac * 10);
      if (pct !== this.lastPct) {
        this.lastPct = pct;
        process.stderr.write(line + '\n');
      }
    }
  }
}
