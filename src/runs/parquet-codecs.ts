/**
 * The decompressors a parquet read is given (hyparquet's `compressors` option): snappy, the codec pandas
 * and pyarrow write by default (TRL's completions files), through hysnappy, hyparquet's author's snappy
 * in WebAssembly (its module is inlined in the package; nothing is fetched). hyparquet's own JavaScript snappy
 * was about a third of a TRL step's decoding; with this (and the `step` column left out) the reader's CPU for
 * a 100 MB TRL search went 2.3–2.5 → 1.6–1.8 s (docs/viewer.md). Where WebAssembly cannot be compiled,
 * hyparquet's own decoder is used, as it is for a damaged stream hysnappy refuses.
 */
import { type Compressors, snappyUncompress } from 'hyparquet';
import { snappyUncompressor } from 'hysnappy';

let made: Compressors | undefined;

/** The compressors to read parquet with (made once; {} where WebAssembly is unavailable). */
export function parquetCompressors(): Compressors {
  if (made) return made;
  try {
    const wasm = snappyUncompressor();
    made = {
      SNAPPY(input: Uint8Array, outputLength: number): Uint8Array {
        try {
          return wasm(input, outputLength);
        } catch {
          // hysnappy refuses some damaged streams that hyparquet's decoder reads (a wrong length in the
          // stream's preamble, which hyparquet takes from the page header instead): read them as it does,
          // so the fast read opens every file the plain read opens (src/runs/fuzz.test.ts).
          const output = new Uint8Array(outputLength);
          snappyUncompress(input, output);
          return output;
        }
      },
    };
  } catch {
    made = {};
  }
  return made;
}
