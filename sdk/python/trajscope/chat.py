"""Reads an OpenAI-style or Anthropic-style chat response into a step: model, token usage, the
action (the tool calls as ``name {json args}``, else the reply text) and the tool calls the model
asked for. Works on plain dicts (the APIs' JSON) and on the official SDKs' response objects. Pure."""

import json
from typing import Any, Dict, List, NamedTuple, Optional


class RequestedToolCall(NamedTuple):
    call_id: str
    tool: str
    arguments: Any


class ChatStep(NamedTuple):
    #: keyword arguments of Run.step (None values left out)
    step: Dict[str, Any]
    tool_calls: List[RequestedToolCall]


def _get(o: Any, key: str) -> Any:
    if o is None:
        return None
    if isinstance(o, dict):
        return o.get(key)
    return getattr(o, key, None)


def _list(v: Any) -> list:
    return list(v) if isinstance(v, (list, tuple)) else []


def _str(v: Any) -> Optional[str]:
    return v if isinstance(v, str) else None


def _count(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _arguments(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def action_text(tool_calls: List[RequestedToolCall], text: str) -> Optional[str]:
    """``name {"arg": ...}`` per tool call, one per line, else the reply text."""
    if tool_calls:
        lines = []
        for c in tool_calls:
            if c.arguments is None:
                lines.append(c.tool)
            else:
                args = c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments, separators=(",", ":"), ensure_ascii=False, default=str)
                lines.append("%s %s" % (c.tool, args))
        return "\n".join(lines)
    return text or None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(t for t in (_str(_get(p, "text")) for p in _list(content)) if t)


def _clean(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def openai_chat_step(response: Any) -> ChatStep:
    """An OpenAI Chat Completions response (``choices[].message.tool_calls``), or a Responses API
    response (``output[]`` with ``function_call`` items)."""
    usage = _get(response, "usage")
    calls: List[RequestedToolCall] = []
    output = _get(response, "output")
    if isinstance(output, (list, tuple)):
        text = ""
        for item in output:
            kind = _get(item, "type")
            if kind == "function_call":
                calls.append(RequestedToolCall(_str(_get(item, "call_id")) or _str(_get(item, "id")) or "", _str(_get(item, "name")) or "", _arguments(_get(item, "arguments"))))
            elif kind == "message":
                text += _text(_get(item, "content"))
        finish = _str(_get(response, "status"))
    else:
        choice = (_list(_get(response, "choices")) or [None])[0]
        message = _get(choice, "message")
        text = _text(_get(message, "content"))
        finish = _str(_get(choice, "finish_reason"))
        for c in _list(_get(message, "tool_calls")):
            fn = _get(c, "function")
            if fn is None:
                continue
            calls.append(RequestedToolCall(_str(_get(c, "id")) or "", _str(_get(fn, "name")) or "", _arguments(_get(fn, "arguments"))))
    in_details = _get(usage, "prompt_tokens_details") or _get(usage, "input_tokens_details")
    out_details = _get(usage, "completion_tokens_details") or _get(usage, "output_tokens_details")
    prompt = _count(_get(usage, "prompt_tokens"))
    completion = _count(_get(usage, "completion_tokens"))
    calls = [c for c in calls if c.tool]
    metadata = _clean({"response_id": _str(_get(response, "id")), "finish_reason": finish})
    return ChatStep(
        _clean({
            "model": _str(_get(response, "model")),
            # OpenAI counts the whole prompt, cached tokens included, as Trajscope does.
            "input_tokens": prompt if prompt is not None else _count(_get(usage, "input_tokens")),
            "output_tokens": completion if completion is not None else _count(_get(usage, "output_tokens")),
            "cache_read_tokens": _count(_get(in_details, "cached_tokens")),
            "reasoning_tokens": _count(_get(out_details, "reasoning_tokens")),
            "action": action_text(calls, text),
            "metadata": metadata or None,
        }),
        calls,
    )


def anthropic_message_step(response: Any) -> ChatStep:
    """An Anthropic Messages response (``content[]`` with ``tool_use`` blocks)."""
    usage = _get(response, "usage")
    calls: List[RequestedToolCall] = []
    texts: List[str] = []
    for block in _list(_get(response, "content")):
        kind = _get(block, "type")
        if kind in ("tool_use", "server_tool_use"):
            calls.append(RequestedToolCall(_str(_get(block, "id")) or "", _str(_get(block, "name")) or "", _get(block, "input")))
        elif kind == "text" and isinstance(_get(block, "text"), str):
            texts.append(_get(block, "text"))
    cache_read = _count(_get(usage, "cache_read_input_tokens"))
    cache_write = _count(_get(usage, "cache_creation_input_tokens"))
    uncached = _count(_get(usage, "input_tokens"))
    parts = [p for p in (uncached, cache_read, cache_write) if p is not None]
    calls = [c for c in calls if c.tool]
    metadata = _clean({"response_id": _str(_get(response, "id")), "stop_reason": _str(_get(response, "stop_reason"))})
    return ChatStep(
        _clean({
            "model": _str(_get(response, "model")),
            # Anthropic counts only the uncached part of the prompt; Trajscope counts all of it.
            "input_tokens": sum(parts) if parts else None,
            "output_tokens": _count(_get(usage, "output_tokens")),
            "cache_read_tokens": cache_read,
            "cache_write_tokens": cache_write,
            "action": action_text(calls, "\n".join(texts)),
            "metadata": metadata or None,
        }),
        calls,
    )
