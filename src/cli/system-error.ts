/**
 * File-system errors as sentences that name the path, so no rlvr command prints a raw
 * "EISDIR: illegal operation on a directory, read": main.ts passes every command's error through
 * cliErrorText, which also rewrites a raw Node message another message quoted ("cannot read X: EISDIR: ...").
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

/** What went wrong for each code, with the path when known. */
function sentence(code: string, path: string | undefined, syscall: string | undefined): string {
  const at = path ?? 'it';
  switch (code) {
    case 'ENOENT':
      if (path && !existsSync(dirname(path))) return `the folder ${dirname(path)} does not exist`;
      return `${at} does not exist`;
    case 'EISDIR':
      return `${at} is a folder, where a file was expected`;
    case 'ENOTDIR':
      return `${at}: a part of the path is a file, where a folder was expected`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to ${syscall === 'open' || !syscall ? 'open' : syscall} ${at}`;
    case 'EEXIST':
      return `${at} already exists`;
    case 'ENOSPC':
      return `no space left on the disk${path ? ` writing ${path}` : ''}`;
    default:
      return `${at}: the file system refused (${code}${syscall ? `, ${syscall}` : ''})`;
  }
}

/** A Node file-system error as a sentence naming its path; null for other errors. */
export function systemErrorMessage(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const e = err as NodeJS.ErrnoException;
  if (!e.code || !/^E[A-Z]+$/.test(e.code) || e.syscall === undefined) return null;
  return sentence(e.code, e.path, e.syscall);
}

/** Node's wording: `EISDIR: illegal operation on a directory, read`, `ENOENT: no such file or directory, open '/x'`. */
const RAW = /\b(E[A-Z]{3,}): [a-z][^,]*, ([a-z]+)(?: '([^']*)')?/g;

/** The text an rlvr command prints for an error: no raw system error anywhere in it. */
export function cliErrorText(err: unknown): string {
  const text = systemErrorMessage(err) ?? (err instanceof Error ? err.message : String(err));
  return text.replace(RAW, (_all, code: string, syscall: string, path?: string) => sentence(code, path, syscall));
}
