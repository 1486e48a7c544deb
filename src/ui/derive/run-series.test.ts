import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionStatus, StepMetrics } from '../../../workers/protocol.ts';
import { foldSideEvents } from './run-series.ts';
import { idleSide } from '../state/store.ts';

const status = (state: SessionStatus['state'], step: number): SessionEvent => ({
  type: 'status',
  status: { state, step, stepsPerMinute: 6 } as SessionStatus,
});
const stepEvent = (step: number, difficulty: Record<string, number | string> = {}): SessionEvent =>
  ({ type: 'step', metrics: { step, reward: step / 10 } as StepMetrics, difficulty }) as SessionEvent;
const evalEvent = (step: number): SessionEvent => ({ type: 'eval', point: { step } }) as SessionEvent;

describe('foldSideEvents: a Compare side from its worker events', () => {
  it('appends steps with their difficulty knobs, adds each evaluation once, and follows the status', () => {
    const side = idleSide('A');
    const { next, pauseAsked } = foldSideEvents(
      side,
      [stepEvent(1, { level: 2, kind: 'x' }), evalEvent(1), evalEvent(1), status('running', 1)],
      false,
    );
    expect(next.metrics?.map((m) => m.step)).toEqual([1]);
    expect(next.metrics?.[0]).toMatchObject({ 'difficulty/level': 2 });
    expect(next.metrics?.[0]).not.toHaveProperty('difficulty/kind');
    expect(next.evals?.map((e) => e.step)).toEqual([1]);
    expect(next).toMatchObject({ state: 'running', step: 1, stepsPerMinute: 6 });
    expect(pauseAsked).toBe(false);
    expect(foldSideEvents({ ...side, ...next }, [evalEvent(1)], false).next).toEqual({});
  });

  it('reads "pausing" while Pause waits, and lets go once the worker stops', () => {
    const side = { ...idleSide('B'), state: 'running' as const };
    const waiting = foldSideEvents(side, [status('running', 3)], true);
    expect(waiting).toMatchObject({ next: { state: 'pausing', step: 3 }, pauseAsked: true });
    const stopped = foldSideEvents({ ...side, ...waiting.next }, [status('paused', 3)], true);
    expect(stopped).toMatchObject({ next: { state: 'paused' }, pauseAsked: false });
  });

  it('keeps showing an error when a failed init leaves the worker idle', () => {
    const side = { ...idleSide('A'), state: 'error' as const, error: 'init failed' };
    const idle = foldSideEvents(side, [status('idle', 0)], false).next;
    expect(idle).not.toHaveProperty('state');
    expect(idle).not.toHaveProperty('error');
    const later: SessionEvent = { type: 'error', message: 'later', fatal: true };
    expect(foldSideEvents(side, [later], false).next).toEqual({ error: 'later' });
  });
});
