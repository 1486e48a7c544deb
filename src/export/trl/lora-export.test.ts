// The TRL export passes the run's LoRA settings as PEFT's LoraConfig (peft_config), and none for full fine-tuning.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../rl/config.ts';
import { trainScriptSource } from './train-script.ts';

describe('train_grpo.py with LoRA', () => {
  it('passes peft_config = LoraConfig(r, lora_alpha, lora_dropout, target_modules) when lora_r > 0', () => {
    const src = trainScriptSource(
      validateConfig({ task: 'arithmetic', lora_r: 8, lora_alpha: 16, target_modules: 'q_proj, v_proj' }),
      {},
    );
    expect(src).toContain('    target_modules = ["q_proj", "v_proj"]');
    expect(src).toContain(
      '    peft_config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0, target_modules=target_modules, ' +
        'task_type="CAUSAL_LM")',
    );
    expect(src).toContain('        peft_config=peft_config,');
    const full = trainScriptSource(validateConfig({ task: 'arithmetic' }), {});
    expect(full).toContain('    peft_config = None  # lora_r = 0: full fine-tuning');
    expect(full).not.toContain('LoraConfig(r=');
  });

  it('refuses module names PEFT does not have here, and lora_dropout > 0 (no dropout in the engine)', () => {
    expect(() => validateConfig({ lora_r: 4, target_modules: 'c_attn' })).toThrow(/target_modules/);
    expect(() => validateConfig({ lora_r: 4, lora_dropout: 0.1 })).toThrow(/lora_dropout/);
    expect(validateConfig({ lora_r: 0, lora_dropout: 0.1 }).lora_dropout).toBe(0.1);
  });
});
