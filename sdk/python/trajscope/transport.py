"""What carries batches of events to Trajscope: POST /v1/events over HTTP (urllib, gzip optional).

200/207 and a 400 that lists refused events are answers (per-event errors counted); 408, 425,
429, 5xx and network errors are retryable (Retry-After honoured); 413 asks for a smaller batch;
other answers fail the batch."""

import gzip
import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence

from .backoff import parse_retry_after


class DeliveryResult(NamedTuple):
    accepted: int
    #: ``{"index": i, "error": "..."}`` per refused event (index into the batch).
    rejected: List[Dict[str, Any]]


class TransportError(Exception):
    """A batch that was not delivered; ``retryable`` says whether sending it again may succeed."""

    def __init__(
        self,
        message: str,
        retryable: bool,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        too_large: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.too_large = too_large


class Transport:
    """Base of transports: ``send`` delivers one batch or raises TransportError."""

    def send(self, events: Sequence[Mapping[str, Any]]) -> DeliveryResult:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass


_RETRYABLE = {408, 425, 429}


class HttpTransport(Transport):
    def __init__(
        self,
        url: str,
        api_key: Optional[str] = None,
        gzip_body: bool = False,
        timeout: float = 60.0,
        headers: Optional[Mapping[str, str]] = None,
        ack: Optional[str] = None,
    ) -> None:
        # ack: when the server answers, "stored" or "buffered" (faster; a server crash loses
        # what it buffered); default: the server's setting.
        self.endpoint = urllib.parse.urljoin(url, "/v1/events") + ("?ack=" + ack if ack else "")
        self.api_key = api_key
        self.gzip_body = gzip_body
        self.timeout = timeout
        self.headers = dict(headers or {})

    def send(self, events: Sequence[Mapping[str, Any]]) -> DeliveryResult:
        body = json.dumps(list(events), separators=(",", ":"), default=str).encode("utf-8")
        headers = {"content-type": "application/json", **self.headers}
        if self.api_key:
            headers["authorization"] = "Bearer " + self.api_key
        if self.gzip_body:
            body = gzip.compress(body)
            headers["content-encoding"] = "gzip"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, raw, response_headers = response.status, response.read(), response.headers
        except urllib.error.HTTPError as e:
            status, raw, response_headers = e.code, _read(e), e.headers
        except (urllib.error.URLError, OSError, http.client.HTTPException, socket.timeout) as e:
            reason = getattr(e, "reason", e)
            raise TransportError("cannot reach %s: %s" % (self.endpoint, reason), retryable=True) from e
        answer = _json(raw)
        rejected = answer.get("rejected") if isinstance(answer, dict) else None
        if 200 <= status < 300 or (status == 400 and isinstance(rejected, list)):
            rejected = rejected if isinstance(rejected, list) else []
            accepted = answer.get("accepted") if isinstance(answer, dict) else None
            if not isinstance(accepted, int):
                accepted = len(events) - len(rejected)
            return DeliveryResult(accepted, rejected)
        message = "%s answered %d" % (self.endpoint, status)
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict) and answer["error"].get("message"):
            message += ": " + str(answer["error"]["message"])
        if status == 413:
            raise TransportError(message, retryable=False, status=413, too_large=True)
        retry_after = parse_retry_after(response_headers.get("retry-after") if response_headers else None)
        raise TransportError(message, retryable=status >= 500 or status in _RETRYABLE, status=status, retry_after=retry_after)


def _read(e: urllib.error.HTTPError) -> bytes:
    try:
        return e.read()
    except Exception:
        return b""


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
