// What the SDK reports to `onError` (it never throws into the agent).

/**
 * - `dropped`: the queue was full (or the client shut down), events were not kept
 * - `rejected`: the server refused some events (invalid), the rest were stored
 * - `failed`: a batch could not be delivered (a non-retryable answer, or retries used up)
 * - `invalid`: an SDK call could not make an event (e.g. a tool call without a tool name)
 */
export type ErrorKind = 'dropped' | 'rejected' | 'failed' | 'invalid';

export class TrajscopeError extends Error {
  override readonly name = 'TrajscopeError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
