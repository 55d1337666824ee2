"""The Python SDK without a server: its events validate against the contract's JSON Schema
(schemas/event.schema.json) with declared fields only, chat responses map to steps, backoff and
Retry-After, and the queue's guarantees over in-memory transports."""

import json
import re
import threading
from types import SimpleNamespace

from conftest import REPO

import trajscope
from trajscope import Client, DeliveryResult, Transport, TransportError

SCHEMA = json.loads((REPO / "schemas" / "event.schema.json").read_text())


def schema_errors(value, schema, path="$"):
    """The subset of JSON Schema the contract's generated schema uses."""
    errors = []
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf")
        results = [schema_errors(value, s, path) for s in options]
        ok = sum(1 for r in results if not r)
        if ok == 0 or ("oneOf" in schema and ok > 1):
            errors.append("%s: matches %d of the options" % (path, ok))
        return errors
    t = schema.get("type")
    kinds = {"object": dict, "string": str, "boolean": bool, "array": list}
    if t == "integer" and not (isinstance(value, int) and not isinstance(value, bool)):
        return ["%s: not an integer" % path]
    if t == "number" and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return ["%s: not a number" % path]
    if t in kinds and not isinstance(value, kinds[t]):
        return ["%s: not a %s" % (path, t)]
    if "const" in schema and value != schema["const"]:
        errors.append("%s: not %r" % (path, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: not one of %r" % (path, schema["enum"]))
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 10**9):
            errors.append("%s: length" % path)
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append("%s: does not match %s" % (path, schema["pattern"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append("%s: below %s" % (path, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append("%s: above %s" % (path, schema["maximum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: %s is required" % (path, key))
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors.extend(schema_errors(value[key], sub, path + "." + key))
    return errors


def assert_contract_event(e):
    variant = next(s for s in SCHEMA["oneOf"] if s["properties"]["type"].get("const") == e["type"])
    assert schema_errors(e, SCHEMA) == [], (e, schema_errors(e, SCHEMA))
    # Every field is a declared one: nothing lands in metadata by accident.
    assert set(e) <= set(variant["properties"]), set(e) - set(variant["properties"])


class Memory(Transport):
    """Keeps what it is sent; fails the first ``failures`` sends with a retryable error."""

    def __init__(self, failures=0, retry_after=None):
        self.events = []
        self.failures = failures
        self.retry_after = retry_after
        self.lock = threading.Lock()

    def send(self, events):
        with self.lock:
            if self.failures > 0:
                self.failures -= 1
                raise TransportError("down", retryable=True, status=503, retry_after=self.retry_after)
            self.events.extend(events)
        return DeliveryResult(len(events), [])


OPENAI = {
    "id": "chatcmpl-1",
    "model": "gpt-4o-2024-08-06",
    "choices": [{
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "bash", "arguments": '{"cmd":"ls -la"}'}},
        ]},
    }],
    "usage": {"prompt_tokens": 1200, "completion_tokens": 80, "prompt_tokens_details": {"cached_tokens": 1024},
              "completion_tokens_details": {"reasoning_tokens": 32}},
}

ANTHROPIC = {
    "id": "msg_01",
    "model": "claude-sonnet-4-20250514",
    "stop_reason": "tool_use",
    "content": [{"type": "text", "text": "Let me look."}, {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"cmd": "pytest -x"}}],
    "usage": {"input_tokens": 100, "output_tokens": 50, "cache_read_input_tokens": 4000, "cache_creation_input_tokens": 300},
}


def test_events_validate_against_the_contract():
    t = Memory()
    c = Client(transport=t, project="py-unit", flush_at_exit=False)
    run = c.start_run(run_id="r1", agent={"name": "fixer", "version": "1.2"}, model="gpt-4o", task={"id": "t", "category": "bugfix"},
                      environment="sandbox", tags={"dataset": "v", "shard": 3, "canary": True}, parent_run_id="r0", max_steps=40,
                      budget_usd=1.5, rl={"training_step": 12, "policy_version": "ckpt-12", "group_id": "g", "sample_index": 2},
                      metadata={"host": "w1"})
    assert run.step(model="gpt-4o", input_tokens=10, output_tokens=2, cache_read_tokens=4, cache_write_tokens=1, reasoning_tokens=1,
                    cost_usd=0.01, latency_ms=120, action="think", observation="ok") == 0
    run.tool_call("bash", arguments={"cmd": "ls"}, output="a.py", duration_ms=30)
    run.tool_call("bash", arguments={"cmd": "false"}, error={"type": "ExitCode", "message": "exit 1"})
    import datetime
    assert run.step(error={"type": "Timeout", "message": "slow"}, ts=datetime.datetime(2026, 11, 30, 10, 0, tzinfo=datetime.timezone.utc)) == 1
    assert run.record_openai_chat(OPENAI, latency_ms=900) == 2
    run.tool_call(call_id="call_a", output="total 0")
    assert run.record_anthropic_message(ANTHROPIC) == 3
    run.tool_call(call_id="toolu_01", status="error", output="1 failed")
    run.score("judge", 0.8, source="judge", comment="fine")
    run.end_run("failure", reward=0, tests={"passed": 3, "failed": 1}, failure_mode="tests_failed", error={"type": "X", "message": "y"})
    assert c.flush(10)
    c.shutdown()

    assert [e["type"] for e in t.events] == ["run_start", "step", "tool_call", "tool_call", "step", "step", "tool_call", "step", "tool_call", "score", "run_end"]
    for e in t.events:
        assert_contract_event(e)
        assert e["project"] == "py-unit" and e["run_id"] == "r1" and e["v"] == 1
    assert t.events[2]["status"] == "ok" and t.events[3]["status"] == "error" and t.events[2]["call_id"] != t.events[3]["call_id"]
    assert t.events[4]["ts"] == "2026-11-30T10:00:00.000Z"
    assert t.events[5]["model"] == "gpt-4o-2024-08-06" and t.events[5]["metadata"] == {"response_id": "chatcmpl-1", "finish_reason": "tool_calls"}
    assert {k: t.events[6][k] for k in ("call_id", "tool", "arguments", "step", "status")} == {
        "call_id": "call_a", "tool": "bash", "arguments": {"cmd": "ls -la"}, "step": 2, "status": "ok"}
    assert {k: t.events[8][k] for k in ("call_id", "tool", "arguments", "step", "status")} == {
        "call_id": "toolu_01", "tool": "bash", "arguments": {"cmd": "pytest -x"}, "step": 3, "status": "error"}


def test_chat_responses_as_steps_dicts_and_sdk_objects():
    step, calls = trajscope.openai_chat_step(OPENAI)
    assert step == {"model": "gpt-4o-2024-08-06", "input_tokens": 1200, "output_tokens": 80, "cache_read_tokens": 1024,
                    "reasoning_tokens": 32, "action": 'bash {"cmd":"ls -la"}',
                    "metadata": {"response_id": "chatcmpl-1", "finish_reason": "tool_calls"}}
    assert calls == [("call_a", "bash", {"cmd": "ls -la"})]
    step, calls = trajscope.anthropic_message_step(ANTHROPIC)
    assert step["input_tokens"] == 4400 and step["cache_read_tokens"] == 4000 and step["cache_write_tokens"] == 300
    assert step["action"] == 'bash {"cmd":"pytest -x"}' and calls == [("toolu_01", "bash", {"cmd": "pytest -x"})]

    # The official SDKs return objects with attributes rather than dicts.
    ns = lambda **kw: SimpleNamespace(**kw)  # noqa: E731
    obj = ns(id="c2", model="gpt-4o", choices=[ns(finish_reason="stop", message=ns(content="done", tool_calls=None))],
             usage=ns(prompt_tokens=7, completion_tokens=2, prompt_tokens_details=None, completion_tokens_details=None))
    step, calls = trajscope.openai_chat_step(obj)
    assert step["action"] == "done" and step["input_tokens"] == 7 and calls == []
    for bad in (None, 1, "x", {"choices": "no"}, {"content": [None, 1]}):
        assert trajscope.openai_chat_step(bad).tool_calls == [] and trajscope.anthropic_message_step(bad).tool_calls == []


def test_wrappers_return_the_response_and_record_failures():
    t = Memory()
    c = Client(transport=t, flush_at_exit=False)
    run = c.start_run(run_id="w")
    assert run.openai_chat(lambda **kw: OPENAI, model="gpt-4o") is OPENAI
    assert run.anthropic_message(lambda: ANTHROPIC) is ANTHROPIC

    def boom(**kw):
        raise TimeoutError("model timed out")

    try:
        run.openai_chat(boom, step_fields={"model": "gpt-4o"})
        raise AssertionError("the call's exception must be re-raised")
    except TimeoutError:
        pass
    c.shutdown()
    steps = [e for e in t.events if e["type"] == "step"]
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert steps[0]["latency_ms"] >= 0 and steps[2]["error"] == {"type": "TimeoutError", "message": "model timed out"}
    for e in t.events:
        assert_contract_event(e)


def test_backoff_and_retry_after():
    assert [trajscope.backoff_delay(a, 0.1, 1.0, lambda: 1.0) for a in (0, 1, 2, 3, 4, 10)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert [trajscope.backoff_delay(a, 0.1, 1.0, lambda: 0.0) for a in (0, 1, 4)] == [0.05, 0.1, 0.5]
    assert trajscope.retry_delay(0, 5.0, 0.1, 1.0, lambda: 1.0) == 5.0
    assert trajscope.retry_delay(0, 86400.0, 0.1, 1.0, lambda: 1.0) == 300.0
    now = 1_796_032_800.0  # 2026-11-30T10:00:00Z
    assert trajscope.parse_retry_after("5", now) == 5.0
    assert trajscope.parse_retry_after("Mon, 30 Nov 2026 10:00:30 GMT", now) == 30.0
    assert trajscope.parse_retry_after("soon", now) is None and trajscope.parse_retry_after(None) is None


def test_queue_is_bounded_and_never_raises():
    release = threading.Event()

    class Stuck(Transport):
        def send(self, events):
            release.wait(10)
            raise TransportError("down", retryable=False)

    kinds = []
    c = Client(transport=Stuck(), max_queue_size=50, batch_size=10, flush_interval=0.01, flush_at_exit=False, on_error=lambda e: kinds.append(e.kind))
    run = c.start_run(run_id="q")
    for i in range(99):
        run.step(action="a%d" % i)
    s = c.stats()
    assert (s["enqueued"], s["dropped"], s["pending"], s["sent"]) == (50, 50, 50, 0)
    assert set(kinds) == {"dropped"}
    assert c.flush(0.05) is False
    release.set()
    final = c.shutdown(5)
    assert final["dropped"] + final["failed"] == 100 and final["pending"] == 0
    run.step()
    assert c.stats()["dropped"] == final["dropped"] + 1


def test_retries_until_delivered_and_halves_too_large_batches():
    t = Memory(failures=3, retry_after=0.02)
    c = Client(transport=t, initial_backoff=0.001, max_backoff=0.005, flush_interval=0.01, flush_at_exit=False)
    run = c.start_run(run_id="retry")
    for _ in range(5):
        run.step()
    assert c.flush(10)
    assert len(t.events) == 6
    s = c.shutdown()
    assert (s["sent"], s["retries"], s["dropped"], s["failed"]) == (6, 3, 0, 0)

    sizes = []

    class Small(Transport):
        def send(self, events):
            sizes.append(len(events))
            if len(events) > 3:
                raise TransportError("too large", retryable=False, status=413, too_large=True)
            return DeliveryResult(len(events), [])

    c = Client(transport=Small(), batch_size=100, flush_interval=0.01, flush_at_exit=False)
    run = c.start_run(run_id="big")
    for _ in range(9):
        run.step()
    assert c.flush(10)
    assert c.shutdown()["sent"] == 10 and sizes[:3] == [10, 5, 3]


def test_a_tool_call_without_a_tool_is_reported_not_raised():
    kinds = []
    t = Memory()
    c = Client(transport=t, flush_at_exit=False, on_error=lambda e: kinds.append(e.kind))
    run = c.start_run(run_id="x")
    run.tool_call(call_id="unknown")
    run.step(no_such_field=1)  # a wrong keyword: reported, not raised
    c.shutdown()
    assert [e["type"] for e in t.events] == ["run_start"] and kinds == ["invalid", "invalid"]


def test_http_transport_endpoint_and_ack():
    assert trajscope.HttpTransport("http://127.0.0.1:7300").endpoint == "http://127.0.0.1:7300/v1/events"
    assert trajscope.HttpTransport("http://h:1/", ack="buffered").endpoint == "http://h:1/v1/events?ack=buffered"
