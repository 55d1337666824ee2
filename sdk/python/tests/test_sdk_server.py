"""The Python SDK against a real Trajscope server: runs recorded from many threads arrive complete,
chat responses land as steps and tool calls, refused events are counted, and a server that is down
and then comes up on the same port loses nothing within the queue bound while the agent's calls
return at once."""

import threading
import time

from conftest import ServerProcess, free_port, get_json, list_runs

from trajscope import Client


def agent_run(client, run_id, steps):
    run = client.start_run(run_id=run_id, agent={"name": "py-sdk-test", "version": "1"}, model="gpt-4o", task={"id": run_id, "category": "sdk"})
    for i in range(steps):
        run.step(input_tokens=100 + i, output_tokens=10, action='bash {"cmd":"echo %d"}' % i, observation=str(i))
        run.tool_call("bash", arguments={"cmd": "echo %d" % i}, output=str(i), status="error" if i % 4 == 3 else "ok")
    run.end_run("success", reward=1.0)


def run_threads(target, n):
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)


def test_runs_from_many_threads_arrive_complete(server):
    client = Client(server.url, project="py-threads", batch_size=100, flush_interval=0.02, flush_at_exit=False)
    run_threads(lambda i: [agent_run(client, "thr-%d-%d" % (i, k), 10) for k in range(4)], 16)
    # One run handle shared by 8 threads: every step gets its own index.
    shared = client.start_run(run_id="shared")
    run_threads(lambda i: [shared.step(input_tokens=1, action="t%d-%d" % (i, k)) for k in range(25)], 8)
    shared.end_run("success")
    assert client.flush(60)
    stats = client.shutdown()
    total = 64 * 22 + 202
    assert stats == {"enqueued": total, "sent": total, "dropped": 0, "rejected": 0, "failed": 0, "retries": stats["retries"], "pending": 0}

    runs = {r["run_id"]: r for r in list_runs(server.url, "py-threads")}
    assert len(runs) == 65
    for i in range(16):
        for k in range(4):
            r = runs["thr-%d-%d" % (i, k)]
            assert (r["status"], r["steps"], r["tool_calls"], r["tool_errors"], r["input_tokens"], r["reward"]) == ("success", 10, 10, 2, 1045, 1)
    assert runs["shared"]["steps"] == 200
    detail = get_json(server.url, "/api/v1/runs/shared?project=py-threads")
    assert [s["step"] for s in detail["steps"]] == list(range(200))


def test_chat_responses_become_steps_and_tool_calls(server):
    client = Client(server.url, project="py-chat", gzip=True, flush_interval=0.02, flush_at_exit=False)
    run = client.start_run(run_id="chat-1", agent={"name": "chat-agent"})
    openai_response = {
        "id": "chatcmpl-9", "model": "gpt-4o-mini",
        "choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "grep", "arguments": '{"pattern":"TODO"}'}}]}}],
        "usage": {"prompt_tokens": 2000, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 1500}},
    }
    assert run.openai_chat(lambda **kw: openai_response, model="gpt-4o-mini", messages=[]) is openai_response
    run.tool_call(call_id="call_1", output="a.py:3: TODO", duration_ms=12)
    anthropic_response = {
        "id": "msg_1", "model": "claude-sonnet-4", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_9", "name": "edit", "input": {"path": "a.py"}}],
        "usage": {"input_tokens": 10, "output_tokens": 60, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 0},
    }
    run.anthropic_message(lambda: anthropic_response)
    run.tool_call(call_id="toolu_9", error={"type": "EditError", "message": "no match"})
    run.end_run("failure")
    run.score("judge", 0.25, source="judge")
    assert client.flush(60)
    assert client.shutdown()["sent"] == 7

    d = get_json(server.url, "/api/v1/runs/chat-1?project=py-chat")
    r = d["run"]
    assert (r["agent_name"], r["status"], r["steps"], r["tool_calls"], r["tool_errors"]) == ("chat-agent", "failure", 2, 2, 1)
    assert (r["input_tokens"], r["output_tokens"], r["cache_read_tokens"]) == (5010, 100, 4500)
    assert [(s["step"], s["model"], s["action"]) for s in d["steps"]] == [
        (0, "gpt-4o-mini", 'grep {"pattern":"TODO"}'), (1, "claude-sonnet-4", 'edit {"path":"a.py"}')]
    assert d["steps"][0]["metadata"]["response_id"] == "chatcmpl-9"
    calls = [(c["call_id"], c["step"], c["tool"], c["status"], c["error_type"]) for c in d["tool_calls"]]
    assert calls == [("call_1", 0, "grep", "ok", ""), ("toolu_9", 1, "edit", "error", "EditError")]
    assert [(s["name"], s["value"], s["source"]) for s in d["scores"]] == [("judge", 0.25, "judge")]


def test_refused_events_are_counted_and_the_rest_stored(server):
    errors = []
    client = Client(server.url, project="py-rejected", flush_interval=0.02, flush_at_exit=False, on_error=errors.append)
    run = client.start_run(run_id="rej-1")
    run.step(input_tokens=5)
    run.step(input_tokens=-3)  # not a count: refused by the server
    run.end_run("success")
    assert client.flush(60)
    s = client.shutdown()
    assert (s["sent"], s["rejected"], s["failed"]) == (3, 1, 0)
    assert [e.kind for e in errors] == ["rejected"] and "step of run rej-1" in str(errors[0])
    [r] = list_runs(server.url, "py-rejected")
    assert (r["run_id"], r["steps"], r["status"]) == ("rej-1", 1, "success")


def test_server_down_then_up_loses_nothing_within_the_queue_bound(tmp_dir):
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    opts = dict(flush_interval=0.02, initial_backoff=0.05, max_backoff=0.4, flush_at_exit=False)
    client = Client(url, project="py-outage", batch_size=100, max_queue_size=2000, **opts)
    kinds = []
    small = Client(url, project="py-overflow", max_queue_size=100, on_error=lambda e: kinds.append(e.kind), **opts)

    # 8 threads record whole runs while nothing listens on the port: every call returns (the
    # threads finish before any server exists) and none raises.
    run_threads(lambda i: [agent_run(client, "out-%d-%d" % (i, k), 10) for k in range(3)], 8)
    agent_run(small, "over-1", 80)
    s = client.stats()
    assert (s["enqueued"], s["sent"], s["dropped"], s["pending"]) == (24 * 22, 0, 0, 24 * 22)
    s = small.stats()
    assert (s["enqueued"], s["dropped"], s["sent"], s["pending"]) == (100, 62, 0, 100)
    assert len(kinds) == 62 and set(kinds) == {"dropped"}
    for _ in range(200):
        if client.stats()["retries"] >= 2:
            break
        time.sleep(0.025)
    assert client.stats()["retries"] >= 2
    assert client.flush(0.1) is False

    srv = ServerProcess(port, tmp_dir)
    try:
        srv.wait_ready()
        assert client.flush(60) and small.flush(60)
        s = client.shutdown()
        assert (s["sent"], s["dropped"], s["failed"], s["rejected"], s["pending"]) == (24 * 22, 0, 0, 0, 0)
        s = small.shutdown()
        assert (s["sent"], s["dropped"], s["failed"], s["pending"]) == (100, 62, 0, 0)
        runs = list_runs(url, "py-outage")
        assert len(runs) == 24
        assert all((r["status"], r["steps"], r["tool_calls"]) == ("success", 10, 10) for r in runs)
        # run_start, 49 (step, tool call) pairs and the 50th step: the first 100 events.
        [over] = list_runs(url, "py-overflow")
        assert (over["run_id"], over["steps"], over["tool_calls"], over["status"]) == ("over-1", 50, 49, "running")
    finally:
        srv.stop()


def _forked_worker(client, i):
    agent_run(client, "fork-%d" % i, 5)
    if not client.flush(60):
        raise SystemExit(1)


def test_forked_workers_send_with_the_inherited_client(server):
    import multiprocessing

    client = Client(server.url, project="py-fork", flush_interval=0.02, flush_at_exit=False)
    agent_run(client, "parent", 5)
    workers = [multiprocessing.get_context("fork").Process(target=_forked_worker, args=(client, i)) for i in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert client.flush(60)
    assert client.shutdown()["sent"] == 12  # the parent's own events, sent once
    runs = {r["run_id"]: r for r in list_runs(server.url, "py-fork")}
    assert sorted(runs) == ["fork-0", "fork-1", "fork-2", "parent"]
    assert all((r["steps"], r["tool_calls"], r["status"]) == (5, 5, "success") for r in runs.values())
