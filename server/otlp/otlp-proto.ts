// The OTLP trace messages that POST /v1/traces reads and answers, as protobufjs reflection types.
// Only what the receiver uses is declared (protobuf skips fields it does not know); the field
// numbers are those of the OTLP specification (opentelemetry/proto/collector/trace/v1,
// trace/v1, common/v1, resource/v1) and google.rpc.Status for error bodies.
import protobuf from 'protobufjs';

const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
        ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
        ExportTracePartialSuccess: {
          fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } },
        },
        ResourceSpans: {
          fields: {
            resource: { type: 'Resource', id: 1 },
            scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        ScopeSpans: {
          fields: {
            scope: { type: 'InstrumentationScope', id: 1 },
            spans: { rule: 'repeated', type: 'Span', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            traceState: { type: 'string', id: 3 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            startTimeUnixNano: { type: 'fixed64', id: 7 },
            endTimeUnixNano: { type: 'fixed64', id: 8 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            events: { rule: 'repeated', type: 'SpanEvent', id: 11 },
            status: { type: 'Status', id: 15 },
            flags: { type: 'fixed32', id: 16 },
          },
        },
        SpanEvent: {
          fields: {
            timeUnixNano: { type: 'fixed64', id: 1 },
            name: { type: 'string', id: 2 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
          },
        },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
        AnyValue: {
          oneofs: {
            value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] },
          },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
            arrayValue: { type: 'ArrayValue', id: 5 },
            kvlistValue: { type: 'KeyValueList', id: 6 },
            bytesValue: { type: 'bytes', id: 7 },
          },
        },
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        RpcStatus: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } },
      },
    },
  },
});

const request = root.lookupType('otlp.ExportTraceServiceRequest');
const response = root.lookupType('otlp.ExportTraceServiceResponse');
const rpcStatus = root.lookupType('otlp.RpcStatus');

/**
 * Decodes a protobuf ExportTraceServiceRequest into the shape of OTLP/JSON (lowerCamelCase
 * fields; 64-bit integers as decimal strings; ids as bytes). Throws on malformed input.
 */
export function decodeTraceRequest(body: Uint8Array): unknown {
  return request.toObject(request.decode(body), { longs: String, arrays: true });
}

export function encodeTraceResponse(rejectedSpans: number, errorMessage: string): Uint8Array {
  const msg = rejectedSpans > 0 || errorMessage ? { partialSuccess: { rejectedSpans, errorMessage } } : {};
  return response.encode(response.fromObject(msg)).finish();
}

/** A google.rpc.Status body, as OTLP/HTTP answers errors in protobuf. */
export function encodeRpcStatus(code: number, message: string): Uint8Array {
  return rpcStatus.encode(rpcStatus.fromObject({ code, message })).finish();
}
