// What carries batches of events to Trajscope: HTTP (POST /v1/events) or a Kafka topic.

import type { TrajscopeEvent } from './events.js';

export interface DeliveryResult {
  /** Events the receiver took. */
  accepted: number;
  /** Events it refused, each with its reason (`index` into the batch). */
  rejected: { index: number; error: string }[];
}

export interface Transport {
  /** Sends one batch; throws a TransportError when it was not delivered. */
  send(events: readonly TrajscopeEvent[], signal: AbortSignal): Promise<DeliveryResult>;
  close?(): Promise<void>;
}

/** A batch that was not delivered; `retryable` says whether sending it again may succeed. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly opts: { status?: number; retryAfterMs?: number; tooLarge?: boolean; cause?: unknown } = {},
  ) {
    super(message);
  }
}
