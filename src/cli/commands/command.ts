export interface Command {
  name: string;
  summary: string;
  help: string;
  /** Returns the process exit code. Throw UsageError for bad flags. */
  run(argv: string[]): Promise<number>;
}
