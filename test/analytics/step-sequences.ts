// Hand-made step sequences for loop tests. A token "A>x" is a step with action A and observation
// x; "A>x!" marks the observation as an error; "A" alone gets an observation of its own, so
// different actions differ in both. Steps are numbered from `first`; each spends 100 tokens
// and $0.01.
import type { SignedStep } from '../../analytics/signed-step.js';

export function steps(spec: string, first = 0): SignedStep[] {
  return spec
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((token, i) => {
      const error = token.endsWith('!');
      const [action, observation = `result-of-${action}`] = (error ? token.slice(0, -1) : token).split('>');
      return {
        step: first + i,
        action: `act:${action}`,
        observation: `${error ? 'err' : 'ok'}:${observation}`,
        error,
        tokens: 100,
        cost_usd: 0.01,
      };
    });
}
