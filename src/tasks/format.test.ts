import { describe, expect, it } from 'vitest';
import { countTokens, formatCompletion, isTokenizable, parseCompletion, quote } from './format.ts';
import { parseExpr, evalExpr, exprToString, ratToString } from './expr.ts';

describe('parseCompletion', () => {
  it('accepts the default format with surrounding whitespace', () => {
    expect(parseCompletion('<think>a</think><answer> 42 </answer>')).toMatchObject({
      wellFormed: true,
      think: 'a',
      answer: '42',
    });
    expect(parseCompletion('\n<think>a</think>\n<answer>42</answer>\n').wellFormed).toBe(true);
    expect(parseCompletion('<think></think><answer>x</answer>').wellFormed).toBe(true);
  });
  it.each([
    ['42', 'no <answer> tag', null],
    ['<think>a</think>', 'no <answer> tag', null],
    ['<think>a</think><answer>42', 'unclosed <answer>', null],
    ['<answer>42</answer>', 'missing <think>…</think> block', '42'],
    ['hi <think>a</think><answer>42</answer>', 'text before <think>', '42'],
    ['<think>a</think>so<answer>42</answer>', 'text between </think> and <answer>', '42'],
    ['<think>a</think><answer>42</answer>!', 'text after </answer>', '42'],
    ['<think>a</think><answer>42</answer><answer>7</answer>', 'more than one <answer>', '42'],
    ['<think>a<think></think><answer>42</answer>', 'more than one <think>', '42'],
    ['<answer>42</answer><think>a</think>', 'text before <think>', '42'],
    ['<think>a<answer>1</answer></think>', '</think> must come before <answer>', '1'],
    ['<think>a</answer></think><answer>42</answer>', 'more than one </answer>', '42'],
  ])('%j is malformed: %s', (text, reason, answer) => {
    const p = parseCompletion(text);
    expect(p.wellFormed).toBe(false);
    expect(p.reason).toBe(reason);
    expect(p.answer).toBe(answer);
  });
  it('honours a custom FormatSpec', () => {
    const spec = { thinkTag: 'reason', answerTag: 'final', requireThink: false };
    expect(parseCompletion('<final>3</final>', spec)).toMatchObject({ wellFormed: true, answer: '3' });
    expect(parseCompletion('<reason>r</reason><final>3</final>', spec)).toMatchObject({ wellFormed: true, think: 'r' });
    expect(parseCompletion('<think>r</think><answer>3</answer>', spec).answer).toBeNull();
    expect(formatCompletion('r', '3', spec)).toBe('<reason>r</reason><final>3</final>');
  });
  it('caps the scanned length', () => {
    const p = parseCompletion('<think></think><answer>1</answer>' + ' '.repeat(5000));
    expect(p).toMatchObject({ wellFormed: false, tooLong: true, answer: null });
  });
  it('counts the four tags as one token each', () => {
    expect(countTokens('<think>ab</think><answer>7</answer>')).toBe(7);
    expect(countTokens('')).toBe(0);
    expect(isTokenizable('a b\n~')).toBe(true);
    expect(isTokenizable('a\tb')).toBe(false);
    expect(isTokenizable('¬')).toBe(false);
    expect(quote('a\u0000b')).toBe('"a?b"');
  });
});

describe('expression parser', () => {
  const value = (s: string) => {
    const p = parseExpr(s);
    if (!p.ok) return p.error;
    const v = evalExpr(p.expr);
    return v.ok ? ratToString(v.value) : v.error;
  };
  it('evaluates exactly with precedence and parentheses', () => {
    expect(value('1+2*3')).toBe('7');
    expect(value('(1+2)*3')).toBe('9');
    expect(value('8-3-2')).toBe('3');
    expect(value('8/4/2')).toBe('1');
    expect(value('1/3+1/6')).toBe('1/2');
    expect(value('2-5')).toBe('-3');
    expect(value(' 12 * ( 3 + 4 ) ')).toBe('84');
  });
  it('returns errors, never throws', () => {
    expect(value('1/0')).toBe('division by zero');
    expect(value('1/(2-2)')).toBe('division by zero');
    expect(value('')).toBe('empty expression');
    expect(value('1+')).toBe('expression ends too early');
    expect(value('(1+2')).toMatch(/missing '\)'/);
    expect(value('1+2)')).toMatch(/unexpected '\)'/);
    expect(value('-1')).toMatch(/unary - is not allowed/);
    expect(value('2x3')).toMatch(/unexpected 'x'/);
    expect(value('1.5')).toMatch(/decimals/);
    expect(value('1234567890123')).toMatch(/number too long/);
    expect(value('('.repeat(33) + '1' + ')'.repeat(33))).toMatch(/nested deeper than 32/);
    expect(value('('.repeat(32) + '1' + ')'.repeat(32))).toBe('1');
    expect(value('1'.repeat(201))).toMatch(/too long/);
    expect(value('1 2')).toMatch(/unexpected 2/);
  });
  it('prints with minimal parentheses that keep the value', () => {
    for (const s of ['(1+2)*3', '1+2*3', '8-(3-2)', '8-3-2', '8/(4/2)', '(8/4)/2', '2*(3+4)-(5-1)/2']) {
      const p = parseExpr(s);
      if (!p.ok) throw new Error(p.error);
      const printed = exprToString(p.expr);
      expect(value(printed)).toBe(value(s));
    }
    const p = parseExpr('(8/4)/2');
    expect(p.ok && exprToString(p.expr)).toBe('8/4/2');
  });
});
