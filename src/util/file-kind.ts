/**
 * What a file is, from its content: so a file given to the wrong place is named for what it is and
 * where it opens, instead of failing as a bad instance of what that place expected (a Parquet file as
 * "not UTF-8", TRL's trainer_state.json as 80 unknown config fields). Pure TypeScript (file-kind.test.ts).
 */

export interface FileKind {
  /** What the file is, as a phrase: "a Parquet file". */
  what: string;
  /** Where in the page it can be opened, or what to do with it. */
  where: string;
  /** The same for the rlvr command line. */
  cli: string;
}

/** What the page offers for a TRL run folder (the menu item "Open a run folder…"). */
const RUN_FOLDER = 'a TRL run folder (output_dir, or one of its checkpoint-N folders) opens with "Open a run folder…"';

const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/** Binary formats, by their magic bytes. */
export function binaryKind(bytes: Uint8Array): FileKind | null {
  // Parquet: "PAR1" at the start and the end (TRL's --log_completions writes completions/*.parquet).
  if (startsWith(bytes, [0x50, 0x41, 0x52, 0x31])) {
    return {
      what: 'a Parquet file (binary table data, e.g. the completions TRL logs)',
      where: `TRL's completions/*.parquet open as part of their run: ${RUN_FOLDER}`,
      cli: 'rlvr reads no Parquet; a TRL run writes its run record as output_dir/run.rlvr.gz (rlvr record info)',
    };
  }
  if (startsWith(bytes, [0x1f, 0x8b])) {
    return {
      what: 'a gzip file',
      where: 'a run record (.rlvr.gz) opens with "Open a recorded run…"; other gzip files need unpacking first',
      cli: 'a run record (.rlvr.gz) is read by rlvr record info FILE',
    };
  }
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    return {
      what: 'a zip archive',
      where: 'a zipped Hugging Face model folder opens with Import Hugging Face; other zips need unpacking first',
      cli: 'unzip it first; a Hugging Face model folder imports with rlvr import --format hf DIR',
    };
  }
  // safetensors: an 8-byte little-endian header length, then the JSON header.
  if (bytes.length > 9 && bytes[8] === 0x7b && bytes[6] === 0 && bytes[7] === 0) {
    return {
      what: 'a safetensors weights file',
      where: 'model weights load with Load checkpoint (with their manifest) or Import Hugging Face (with config.json)',
      cli: 'give the manifest.json beside it (--model), or import its folder with rlvr import --format hf DIR',
    };
  }
  return null;
}

/** JSON files other tools write that are not ours, by their fields. */
export function jsonKind(value: unknown): FileKind | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  // transformers' TrainerState.save_to_json: global_step, log_history, best_metric, ...
  if (Array.isArray(o.log_history) && 'global_step' in o) {
    return {
      what: "TRL's trainer_state.json (the training log transformers' Trainer writes beside a checkpoint)",
      where: RUN_FOLDER,
      cli: 'its checkpoint folder imports with rlvr import --format hf DIR',
    };
  }
  if (o.model_type !== undefined && o.architectures !== undefined) {
    return {
      what: "a Hugging Face model's config.json",
      where: 'a Hugging Face model folder opens with Import Hugging Face',
      cli: 'its folder imports with rlvr import --format hf DIR',
    };
  }
  return null;
}

/** `NAME is WHAT, not EXPECTED: WHERE` for a file recognised as something else; null when not recognised. */
export function wrongFileMessage(
  name: string,
  bytes: Uint8Array,
  expected: string,
  place: 'page' | 'cli' = 'page',
): string | null {
  let kind = binaryKind(bytes);
  if (!kind && bytes[0] === 0x7b && bytes.length < 64 * 1024 * 1024) {
    try {
      kind = jsonKind(JSON.parse(new TextDecoder('utf-8').decode(bytes)));
    } catch {
      // not JSON: left to the reader that expected something else
    }
  }
  return kind ? `${name} is ${kind.what}, not ${expected}: ${place === 'cli' ? kind.cli : kind.where}` : null;
}

/** Files dropped on the page together: the one to open as a recording, and a line for each of the others. */
export function droppedFilesPlan(files: readonly { name: string; bytes: Uint8Array }[]): {
  open: number | null;
  notes: string[];
} {
  // One file opens as a recording, which says why when it is not one.
  if (files.length === 1) return { open: 0, notes: [] };
  const open = files.findIndex((f) => binaryKind(f.bytes)?.what === 'a gzip file');
  const notes: string[] = [];
  files.forEach((f, i) => {
    if (i === open) return;
    const kind = wrongFileMessage(f.name, f.bytes, 'a recorded run');
    if (binaryKind(f.bytes)?.what === 'a gzip file') {
      const alone = 'drop it alone, or add it to Compare after opening it';
      notes.push(`${f.name}: not opened, one recorded run opens at a time (${alone})`);
    } else notes.push(kind ?? `${f.name} is not a recorded run (.rlvr.gz), so it was not opened`);
  });
  return { open: open >= 0 ? open : null, notes };
}
