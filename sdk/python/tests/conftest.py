"""Fixtures of the Python SDK tests: a real Trajscope server (the repository's, run from source
with tsx: `node --import tsx bin/cli.ts serve`) on 127.0.0.1, a free port and a temporary data
folder (real embedded ClickHouse engine)."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`trajscope serve` in its own process group, stopped with SIGTERM (it finishes its writes)."""

    def __init__(self, port: int, data_dir: str) -> None:
        self.port = port
        self.url = "http://127.0.0.1:%d" % port
        self.data_dir = data_dir
        self.log_path = os.path.join(data_dir, "server.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFKA_", "CLICKHOUSE_", "TRAJSCOPE_"))}
        env.update(TRAJSCOPE_HOST="127.0.0.1", TRAJSCOPE_PORT=str(port), TRAJSCOPE_DATA_DIR=os.path.join(data_dir, "data"), TRAJSCOPE_LOG_LEVEL="warn")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            ["node", "--import", "tsx", "bin/cli.ts", "serve"],
            cwd=str(REPO), env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def wait_ready(self, timeout: float = 120.0) -> "ServerProcess":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited with %s:\n%s" % (self.proc.returncode, self.log()))
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not answer within %.0f s:\n%s" % (timeout, self.log()))

    def log(self) -> str:
        try:
            return Path(self.log_path).read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._log.close()


def get_json(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return json.loads(r.read().decode("utf-8"))


def list_runs(base: str, project: str) -> List[Dict[str, Any]]:
    """Every run of ``project`` as GET /api/v1/runs lists it (all pages)."""
    runs: List[Dict[str, Any]] = []
    cursor: Optional[str] = None
    for _ in range(100):
        q = {"project": project, "limit": "1000"}
        if cursor:
            q["cursor"] = cursor
        page = get_json(base, "/api/v1/runs?" + urllib.parse.urlencode(q))
        runs.extend(page["runs"])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return runs


@pytest.fixture
def tmp_dir():
    d = tempfile.mkdtemp(prefix="trajscope-pytest-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    d = tempfile.mkdtemp(prefix="trajscope-pytest-")
    srv = ServerProcess(free_port(), d)
    try:
        srv.wait_ready()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(d, ignore_errors=True)
