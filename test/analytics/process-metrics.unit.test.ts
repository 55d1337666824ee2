import { describe, expect, it } from 'vitest';
import { reworkRate, selfCorrectionRate, toolCallSuccessRate } from '../../analytics/process-metrics.js';

describe('tool-call success rate', () => {
  it('counts ok / all, overall and per tool', () => {
    const r = toolCallSuccessRate([
      { tool: 'bash', status: 'ok' },
      { tool: 'bash', status: 'error' },
      { tool: 'edit', status: 'ok' },
      { tool: 'bash', status: 'ok' },
    ]);
    expect(r.overall).toEqual({ numerator: 3, denominator: 4, rate: 0.75 });
    expect(r.by_tool.bash.rate).toBeCloseTo(2 / 3, 12);
    expect(r.by_tool.edit.rate).toBe(1);
    expect(toolCallSuccessRate([]).overall.rate).toBeNull();
  });
});

describe('self-correction rate', () => {
  it('counts an error followed within 3 steps by an ok call of the same tool', () => {
    expect(
      selfCorrectionRate([
        { step: 1, tool: 'bash', status: 'error' },
        { step: 4, tool: 'bash', status: 'ok' }, // exactly 3 steps later
      ]),
    ).toMatchObject({ numerator: 1, denominator: 1, rate: 1 });
  });

  it('does not count a fix 4 steps later, by another tool, or an earlier success', () => {
    expect(
      selfCorrectionRate([
        { step: 0, tool: 'edit', status: 'ok' },
        { step: 1, tool: 'edit', status: 'error' },
        { step: 2, tool: 'bash', status: 'ok' },
        { step: 5, tool: 'edit', status: 'ok' },
      ]).rate,
    ).toBe(0);
  });

  it('counts a retry in the same step, and each error on its own', () => {
    const r = selfCorrectionRate([
      { step: 2, tool: 'bash', status: 'error' },
      { step: 2, tool: 'bash', status: 'error' },
      { step: 2, tool: 'bash', status: 'ok' },
      { step: 3, tool: 'read', status: 'error' },
    ]);
    expect(r).toMatchObject({ numerator: 2, denominator: 3, rate: 2 / 3 });
    expect(r.by_tool).toEqual({
      bash: { numerator: 2, denominator: 2, rate: 1 },
      read: { numerator: 0, denominator: 1, rate: 0 },
    });
  });

  it('per tool: a fix by another tool corrects nothing, tools without errors are absent', () => {
    const r = selfCorrectionRate([
      { step: 1, tool: 'edit', status: 'error' },
      { step: 2, tool: 'bash', status: 'error' },
      { step: 2, tool: 'edit', status: 'ok' },
      { step: 9, tool: 'bash', status: 'ok' },
      { step: 9, tool: 'read', status: 'ok' },
    ]);
    expect(r.by_tool).toEqual({
      edit: { numerator: 1, denominator: 1, rate: 1 },
      bash: { numerator: 0, denominator: 1, rate: 0 },
    });
  });

  it('places calls without a step in the step of the call before', () => {
    expect(
      selfCorrectionRate([
        { step: 1, tool: 'bash', status: 'error' },
        { step: null, tool: 'bash', status: 'ok' },
      ]).rate,
    ).toBe(1);
  });

  it('is null without errors', () => {
    expect(selfCorrectionRate([{ step: 0, tool: 'bash', status: 'ok' }]).rate).toBeNull();
  });
});

describe('rework rate', () => {
  it('is the share of actions that repeat an earlier one', () => {
    expect(reworkRate(['a', 'b', 'a', 'c', 'a', 'b'])).toEqual({ numerator: 3, denominator: 6, rate: 0.5 });
    expect(reworkRate(['a', 'b', 'c']).rate).toBe(0);
    expect(reworkRate([]).rate).toBeNull();
  });
});
