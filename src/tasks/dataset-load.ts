/**
 * A JSONL dataset made ready to train on: the checks of `parseDataset` (the same ones `rlvr sample
 * --dataset` applies), plus what the character-level model needs: every character of a prompt and an
 * answer in its vocabulary, and every prompt short enough for the model's context. The page runs
 * this on the file to show the errors; the trainer worker runs it again on the text it receives.
 */
import {
  DatasetError,
  parseDataset,
  VERIFIER_KINDS,
  type CustomVerifierSpec,
  type Dataset,
  type DatasetLineError,
} from './dataset.ts';
import { makeCustomFamily } from './families/custom.ts';
import { countTokens, isTokenizable } from './format.ts';
import type { TaskFamily } from './types.ts';

/** What travels from the page to the worker: the file's text, its name and the verifier chosen for it. */
export interface DatasetPayload {
  name: string;
  text: string;
  verifier: CustomVerifierSpec;
}

export interface LoadedDataset {
  dataset: Dataset;
  family: TaskFamily;
  verifier: CustomVerifierSpec;
}

/** First character the tokenizer does not know (src/model/tokenizer.ts: printable ASCII and newline), described. */
function badCharacter(field: string, text: string): string | null {
  if (isTokenizable(text)) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && (c < 32 || c > 126)) {
      return (
        `character ${JSON.stringify(text[i])} (code ${c}) at position ${i} of "${field}" is not in the ` +
        `model's vocabulary (printable ASCII and newline only)`
      );
    }
  }
  return null;
}

/** Formats the first few line errors, "line 3: reason; line 7: reason", for one message. */
export function lineErrorsText(errors: DatasetLineError[], max = 3): string {
  const shown = errors.slice(0, max).map((e) => `line ${e.line}: ${e.reason}`);
  return shown.join('; ') + (errors.length > max ? `; and ${errors.length - max} more` : '');
}

/**
 * Parses and checks a dataset and builds the custom family over its good records. Malformed lines and
 * lines with characters outside the vocabulary are reported by line number and skipped (as the CLI
 * does); a file with no usable line throws DatasetError saying why.
 */
export function loadTrainingDataset(p: DatasetPayload): LoadedDataset {
  if (!p || typeof p.text !== 'string') throw new DatasetError('the dataset must be JSONL text');
  if (!p.verifier || !VERIFIER_KINDS.includes(p.verifier.kind))
    throw new DatasetError(`the dataset's verifier must be one of ${VERIFIER_KINDS.join(', ')}`);
  const parsed = parseDataset(p.text);
  const errors = [...parsed.errors];
  let errorCount = parsed.errorCount;
  const records = parsed.records.filter((r) => {
    const bad = badCharacter('prompt', r.prompt) ?? badCharacter('answer', r.answer);
    if (!bad) return true;
    errorCount++;
    errors.push({ line: r.line, reason: bad });
    return false;
  });
  errors.sort((a, b) => a.line - b.line);
  if (records.length === 0)
    throw new DatasetError(
      `${p.name}: no line can be trained on (${errorCount} with errors; ${lineErrorsText(errors)})`,
    );
  const dataset: Dataset = { ...parsed, records, errors, errorCount };
  return { dataset, family: makeCustomFamily(dataset, p.verifier), verifier: p.verifier };
}

/**
 * Longest prompt (tokens) the layout can hold: the prompt grid is the prompt plus 2, rounded up to 8
 * (src/model/task-layout.ts).
 */
export function maxPromptTokens(contextLength: number, maxCompletionLength: number): number {
  return Math.floor((contextLength - maxCompletionLength) / 8) * 8 - 2;
}

/** Throws DatasetError naming the lines whose prompts do not fit the model's context next to max_completion_length. */
export function checkPromptsFit(ds: Dataset, contextLength: number, maxCompletionLength: number): void {
  const room = maxPromptTokens(contextLength, maxCompletionLength);
  const over = ds.records
    .filter((r) => countTokens(r.prompt) > room)
    .map((r) => ({ line: r.line, reason: `prompt is ${countTokens(r.prompt)} tokens` }));
  if (over.length) {
    throw new DatasetError(
      `${over.length} prompt${over.length > 1 ? 's are' : ' is'} too long for this model: with ` +
        `max_completion_length ${maxCompletionLength}, its ${contextLength} positions take prompts of at ` +
        `most ${room} tokens (${lineErrorsText(over)}). Shorten those lines or lower max_completion_length.`,
    );
  }
}
