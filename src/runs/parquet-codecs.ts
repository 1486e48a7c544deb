/**
 * The decompressors a parquet read is given (hyparquet's `compressors` option): snappy, the codec pandas
 * and pyarrow write by default (TRL's completions files), through hysnappy, hyparquet's author's snappy
 * in WebAssembly (its module is inlined in the package; nothing is fetched). It decodes the same bytes as
 * hyparquet's own JavaScript snappy about 3× faster, which was a third of a TRL search's decoding. Where
 * WebAssembly cannot be compiled, hyparquet's own decoder is used.
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
