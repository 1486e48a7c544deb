/**
 * The decompressors a parquet read is given (hyparquet's `compressors` option): snappy, the codec pandas
 * and pyarrow write by default (TRL's completions files), through hysnappy, hyparquet's author's snappy
 * in WebAssembly (its module is inlined in the package; nothing is fetched). hyparquet's own JavaScript snappy
 * was about a third of a TRL step's decoding; with this (and the `step` column left out) the reader's CPU for
 * a 100 MB TRL search went 2.3–2.5 → 1.6–1.8 s (docs/viewer.md). Where WebAssembly cannot be compiled,
 * hyparquet's own decoder is used.
 */
import type { Compressors } from 'hyparquet';
import { snappyUncompressor } from 'hysnappy';

let made: Compressors | undefined;

/** The compressors to read parquet with (made once; {} where WebAssembly is unavailable). */
export function parquetCompressors(): Compressors {
  if (made) return made;
  try {
    made = { SNAPPY: snappyUncompressor() };
  } catch {
    made = {};
  }
  return made;
}
