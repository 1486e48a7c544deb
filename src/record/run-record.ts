// The run record, one file that holds a whole training run: its format (format.ts), its one writer
// (writer.ts) and its one reader (reader.ts), with a file's bytes as served to it (record-file.ts), imported from here.
export * from './format.ts';
export { mb, readCapped } from './gzip.ts';
export * from './reader.ts';
export { decodeRecordFile, isUnpackedRecord } from './record-file.ts';
export * from './writer.ts';
