// Step numbers as people count them. Events store a step's 0-based index (the event contract) and
// links (`?step=N`, `#step-N`) keep that index; the run view shows steps numbered from 1.

/** The number shown for the step stored as `step` (0 → 1). */
export function displayStep(step: number): number {
  return step + 1;
}

/** The stored index of the step shown as `shown` (1 → 0). */
export function storedStep(shown: number): number {
  return shown - 1;
}
