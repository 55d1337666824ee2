"""Trajscope SDK: send LLM-agent runs, steps, tool calls and scores to Trajscope.

    from trajscope import Client
    ts = Client("http://127.0.0.1:7300", project="my-agent")
    run = ts.start_run(agent={"name": "fixer", "version": "1.0"}, model="gpt-4o")
    resp = run.openai_chat(openai.chat.completions.create, model="gpt-4o", messages=msgs, tools=tools)
    run.tool_call(call_id=resp.choices[0].message.tool_calls[0].id, output="...", status="ok")
    run.end_run("success", reward=1.0)
    ts.shutdown()
"""

from .backoff import backoff_delay, parse_retry_after, retry_delay
from .chat import ChatStep, RequestedToolCall, anthropic_message_step, openai_chat_step
from .client import ERROR_KINDS, Client, Run, TrajscopeError
from .transport import DeliveryResult, HttpTransport, Transport, TransportError

__version__ = "0.1.0"

__all__ = [
    "Client",
    "Run",
    "TrajscopeError",
    "ERROR_KINDS",
    "Transport",
    "HttpTransport",
    "TransportError",
    "DeliveryResult",
    "ChatStep",
    "RequestedToolCall",
    "openai_chat_step",
    "anthropic_message_step",
    "backoff_delay",
    "retry_delay",
    "parse_retry_after",
]
