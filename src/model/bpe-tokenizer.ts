import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * A Hugging Face folder's own tokenizer (tokenizer.json, tokenizer_config.json and the chat template),
 * run by Hugging Face's tokenizers.js (@huggingface/tokenizers, the tokenizer part of transformers.js:
 * plain JavaScript, no network, the same in Node and the page) and its Jinja engine for chat templates
 * (@huggingface/jinja). Nothing is tokenized by our own code.
 */
export class BpeTokenizerError extends Error {}

/**
 * The tokenizer models the import accepts: BPE covers byte-level BPE (GPT-2, Llama 3, SmolLM2, Qwen2)
 * and byte-fallback BPE (Llama 2).
 */
export const SUPPORTED_TOKENIZER_MODELS = ['BPE'];

export interface ChatMessage {
  role: string;
  content: string;
}

export class BpeTokenizer {
  private readonly tok: Tokenizer;
  private readonly template: Template | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly padToken: string | null;

  /** `chatTemplate`: chat_template.jinja's text, if the folder has one (else tokenizer_config.json's chat_template). */
  constructor(
    readonly json: Record<string, unknown>,
    readonly config: Record<string, unknown>,
    chatTemplate: string | null = null,
  ) {
    const model = json.model as { type?: unknown } | undefined;
    const type = model?.type;
    if (typeof type !== 'string' || !SUPPORTED_TOKENIZER_MODELS.includes(type)) {
      throw new BpeTokenizerError(
        `tokenizer.json: model.type is ${JSON.stringify(type ?? null)}` +
          `; supported: ${SUPPORTED_TOKENIZER_MODELS.join(', ')}`,
      );
    }
    try {
      this.tok = new Tokenizer(json, config);
    } catch (e) {
      throw new BpeTokenizerError(`tokenizer.json: tokenizers.js cannot load it: ${(e as Error).message}`);
    }
    const special = (k: string): string | null => {
      const v = config[k];
      if (typeof v === 'string') return v;
      if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string')
        return (v as { content: string }).content;
      return null;
    };
    this.bosToken = special('bos_token');
    this.eosToken = special('eos_token');
    this.padToken = special('pad_token');
    const text = chatTemplate ?? templateOf(config.chat_template);
    try {
      this.template = text ? new Template(text) : null;
    } catch (e) {
      throw new BpeTokenizerError(`chat template: cannot parse it: ${(e as Error).message}`);
    }
  }

  /**
   * The ids of `text`, with the special tokens the tokenizer's post-processor adds (transformers'
   * default) unless told otherwise.
   */
  encode(text: string, addSpecialTokens = true): number[] {
    return this.tok.encode(text, { add_special_tokens: addSpecialTokens }).ids;
  }

  /**
   * The text of `ids`. Spaces before punctuation are removed only where tokenizer_config.json asks
   * (clean_up_tokenization_spaces true), as transformers does; tokenizers.js would otherwise clean them.
   */
  decode(ids: number[], skipSpecialTokens = false): string {
    if (ids.length === 0) return ''; // tokenizers.js refuses an empty list
    return this.tok.decode(ids, {
      skip_special_tokens: skipSpecialTokens,
      clean_up_tokenization_spaces: this.config.clean_up_tokenization_spaces === true,
    });
  }

  idOf(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }

  /** The largest id the tokenizer can produce, added tokens included. */
  get maxId(): number {
    let m = -1;
    for (const id of this.tok.get_vocab(true).values()) m = Math.max(m, id);
    return m;
  }

  get hasChatTemplate(): boolean {
    return this.template !== null;
  }

  /** The conversation laid out by the folder's chat template (as transformers' apply_chat_template(tokenize=False)). */
  applyChatTemplate(messages: ChatMessage[], addGenerationPrompt = true): string {
    if (!this.template)
      throw new BpeTokenizerError(
        'this tokenizer has no chat template (tokenizer_config.json chat_template, chat_template.jinja)',
      );
    return this.template.render({
      messages,
      add_generation_prompt: addGenerationPrompt,
      bos_token: this.bosToken ?? '',
      eos_token: this.eosToken ?? '',
      pad_token: this.padToken ?? '',
    });
  }
}

/** tokenizer_config.json's chat_template: a string, or a list of {name, template} whose "default" is used. */
function templateOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const d = v.find((t: { name?: unknown }) => t?.name === 'default') as { template?: unknown } | undefined;
    return typeof d?.template === 'string' ? d.template : null;
  }
  return null;
}
