// @trajscope/sdk: send LLM-agent runs to Trajscope.
//   const ts = new TrajscopeClient({ url: 'http://127.0.0.1:7300', project: 'my-agent' });
//   const run = ts.startRun({ agent: { name: 'fixer', version: '1.0' }, model: 'gpt-4o' });
//   const res = await run.openAIChat(() => openai.chat.completions.create({ ... }));
//   run.toolCall({ callId: res.choices[0].message.tool_calls[0].id, output: '...', status: 'ok' });
//   run.endRun({ status: 'success', reward: 1 });
//   await ts.shutdown();
export { TrajscopeClient, type ClientStats, type TrajscopeOptions } from './client.js';
export { Run, type ChatStepOptions } from './run.js';
export { TrajscopeError, type ErrorKind } from './errors.js';
export { HttpTransport, type HttpTransportOptions } from './http-transport.js';
export { KafkaTransport, type KafkaProducerLike, type KafkaTransportOptions } from './kafka-transport.js';
export { TransportError, type DeliveryResult, type Transport } from './transport.js';
export { anthropicMessageStep, openAIChatStep, type ChatStep, type RequestedToolCall } from './chat-responses.js';
export { backoffDelay, parseRetryAfter, retryDelay, type BackoffOptions } from './backoff.js';
export type * from './events.js';
