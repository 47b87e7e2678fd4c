"""A real, scriptable OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks.

``POST /v1/chat/completions`` answers like the OpenAI API: with a JSON-schema
``response_format`` the message content is bare JSON; without it, the JSON is wrapped in prose
and a code fence (as many local servers do). The normal rating is derived deterministically
from the request's messages. :class:`Behaviour` entries script failures::

    with FakeLLMServer(latency=0.3) as server:
        server.add(Behaviour("status", status=429, times=2, headers={"retry-after-ms": "20"}))
        ... OpenAI(base_url=server.url, api_key="...") ...
        assert len(server.requests) == ...

Every request is recorded (path, headers including ``Authorization``, JSON body).
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = ("interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support")
ACTIONS = ("status", "malformed", "out_of_range", "missing_field", "slow", "prose", "hang", "echo_key",
           "html", "invalid_json", "deep_nesting", "huge_body", "huge_content", "wrong_types", "content_not_text",
           "reset_mid_body", "headers_then_silence", "trickle", "echo_key_everywhere", "truncate")

# Raw HTTP 200 bodies of the hostile reply kinds: (content type, body)
HOSTILE_BODIES = {
    "html": ("text/html; charset=utf-8", b"<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>"),
    "invalid_json": ("application/json", b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "{\"trust'),
    "deep_nesting": ("application/json", b"[" * 1000),
    "huge_body": ("application/json", b'{"choices": [{"message": {"content": "' + b"x" * 5_000_000 + b'"}}]}'),
    "wrong_types": ("application/json", b'{"choices": "none", "usage": {"prompt_tokens": "many"}}'),
    "content_not_text": ("application/json", b'{"choices": [{"message": {"content": {"trust": 4}}}]}'),
}


@dataclass
class Behaviour:
    """A scripted reaction to matching requests.

    action : "status" (answer ``status`` with ``headers``), "malformed" (content that is not JSON),
        "out_of_range" (a score of 7), "missing_field" (no ``trust``), "slow" (sleep ``delay`` s,
        then answer normally), "prose" (JSON inside prose even with response_format), "hang"
        (never answer until the server stops), "echo_key" (a valid rating whose comment repeats the
        request's Authorization header), "huge_content" (a valid completion whose message is
        100,000 characters of JSON-looking text), "truncate" (the answer cut off in the middle of its JSON
        with ``finish_reason: "length"``, as a server does at the completion-token limit; with
        ``needs_tokens`` only when the request's ``max_tokens``/``max_completion_tokens`` is below it), or
        one of :data:`HOSTILE_BODIES` (that raw body with status 200).
    match : only requests whose message text contains this string (``None``: all).
    times : how many matching requests it applies to (``None``: forever).
    message : error message of a "status" answer; ``{authorization}`` is replaced by the request's
        Authorization header (to test that a key echoed by a server never leaks).
    """

    action: str
    match: str | None = None
    times: int | None = None
    status: int = 500
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    message: str = "scripted HTTP {status}"
    needs_tokens: int = 0
    used: int = 0

    def __post_init__(self):
        if self.action not in ACTIONS:
            raise ValueError(f"unknown action {self.action!r}; use one of {ACTIONS}")


@dataclass
class RecordedRequest:
    path: str
    headers: dict  # names in lower case, e.g. "authorization"
    body: dict
    text: str  # all message contents joined
    time: float


def deterministic_rating(text: str) -> dict:
    """The normal answer for a prompt: scores 1-5 and a comment derived from its SHA-256."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    scores = {d: 1 + digest[i] % 5 for i, d in enumerate(DIMENSIONS)}
    return {**scores, "comment": f"Deterministic test rating {digest.hex()[:8]}. It reflects this exact prompt."}


class FakeLLMServer:
    """Threaded OpenAI-compatible server on a free port of 127.0.0.1.

    Parameters
    ----------
    latency : float
        Seconds every request waits before answering.
    reject_response_format : bool
        Answer HTTP 400 to requests that carry ``response_format``.
    like_llama_cpp : bool
        Answer ``response_format: json_schema`` with HTTP 500 and llama-cpp-python's message ("Input
        should be 'text' or 'json_object'"); accept ``json_object`` (with or without a schema).
    responder : callable, optional
        ``responder(body, text) -> dict``: the JSON answer to send instead of a rating (for tests of
        other LLM tasks, e.g. narratives); scripted behaviours still apply.
    """

    def __init__(self, *, latency: float = 0.0, reject_response_format: bool = False, responder=None,
                 like_llama_cpp: bool = False):
        self.latency = latency
        self.like_llama_cpp = like_llama_cpp
        self.responder = responder
        self.reject_response_format = reject_response_format
        self.behaviours: list[Behaviour] = []
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeLLMServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # releases "hang" handlers
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def add(self, behaviour: Behaviour) -> Behaviour:
        with self._lock:
            self.behaviours.append(behaviour)
        return behaviour

    def reset(self) -> None:
        with self._lock:
            self.behaviours.clear()
            self.requests.clear()
            self.disconnects = 0
            self.max_in_flight = 0

    def completion_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- called by the handler ---------------------------------------------------------------------
    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _record(self, request: RecordedRequest) -> Behaviour | None:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            for b in self.behaviours:
                if (b.match is None or b.match in request.text) and (b.times is None or b.used < b.times):
                    b.used += 1
                    return b
        return None


def _handler_for(server: FakeLLMServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # keep test output clean
            return

        def setup(self):
            super().setup()
            # headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and
            # delayed ACKs add ~40 ms to every response
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                return self._json(400, {"error": {"message": "request body is not JSON"}})
            text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            headers = {k.lower(): v for k, v in self.headers.items()}
            behaviour = server._record(RecordedRequest(self.path, headers, body, text, time.time()))
            try:
                self._respond(body, text, behaviour)
            finally:
                server._leave()

        def _respond(self, body, text, behaviour):
            if server.latency:
                time.sleep(server.latency)
            if not self.path.rstrip("/").endswith("/v1/chat/completions"):
                return self._json(404, {"error": {"message": f"no route {self.path}"}})
            if server.reject_response_format and "response_format" in body:
                return self._json(400, {"error": {"message": "response_format is not supported by this server",
                                                  "param": "response_format"}})
            if server.like_llama_cpp and (body.get("response_format") or {}).get("type") == "json_schema":
                return self._json(500, {"error": {"code": 500, "type": "server_error", "message": (
                    "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should "
                    "be 'text' or 'json_object'\", 'input': 'json_schema'}]")}})
            self._answer(body, text, behaviour)

        def _answer(self, body, text, b: Behaviour | None):
            structured = (body.get("response_format") or {}).get("type") in ("json_schema", "json_object")
            rating = deterministic_rating(text) if server.responder is None else server.responder(body, text)
            if b is not None and b.action == "status":
                message = b.message.format(status=b.status, authorization=self.headers.get("authorization", ""))
                return self._json(b.status, {"error": {"message": message}}, b.headers)
            if b is not None and b.action == "slow":
                time.sleep(b.delay)
            if b is not None and b.action == "hang":
                server.stopping.wait()
                return
            if b is not None and b.action in HOSTILE_BODIES:
                return self._raw(200, *HOSTILE_BODIES[b.action])
            if b is not None and b.action == "headers_then_silence":
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "400")
                self.end_headers()
                self.wfile.flush()
                server.stopping.wait()
                return
            if b is not None and b.action == "reset_mid_body":
                data = json.dumps(self._completion(body, text, json.dumps(rating))).encode("utf-8")
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.request.close()  # linger 0: the client sees a reset, not a clean end
                self.close_connection = True
                return
            if b is not None and b.action == "echo_key_everywhere":
                key = self.headers.get("authorization", "")
                echoed = {k: (f"{v} {key}" if isinstance(v, str) else v) for k, v in rating.items()}
                payload = self._completion(body, text, f"{key} " + json.dumps(echoed) + f" {key}")
                payload["id"], payload["model"] = key, key
                return self._json(200, payload)
            if b is not None and b.action == "echo_key":
                rating["comment"] += " Your key is " + self.headers.get("authorization", "") + "."
            if b is not None and b.action == "out_of_range":
                rating["trust"] = 7
            if b is not None and b.action == "missing_field":
                rating.pop("trust")
            content = json.dumps(rating)
            if b is not None and b.action == "malformed":
                content = "I would rate it highly, maybe a four or so, {interpretability: four"
            elif b is not None and b.action == "huge_content":
                content = "{" * 50_000 + "}" * 50_000
            elif not structured or (b is not None and b.action == "prose"):
                content = f"Here is my rating as the persona:\n```json\n{content}\n```\nThank you."
            limit = body.get("max_tokens", body.get("max_completion_tokens", 0)) or 0
            cut = b is not None and b.action == "truncate" and (not b.needs_tokens or limit < b.needs_tokens)
            if cut:
                content = content[:len(content) // 2]
            payload = self._completion(body, text, content)
            if cut:
                payload["choices"][0]["finish_reason"] = "length"
            if b is not None and b.action == "trickle":
                data = json.dumps(payload).encode("utf-8")
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                try:
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        if server.stopping.wait(b.delay):
                            return
                except (BrokenPipeError, ConnectionResetError):
                    with server._lock:
                        server.disconnects += 1
                return
            self._json(200, payload)

        def _completion(self, body, text, content):
            return {
                "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "test-model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": len(content) // 4,
                          "total_tokens": len(text) // 4 + len(content) // 4},
            }

        def _json(self, status: int, payload: dict, headers: dict | None = None):
            self._raw(status, "application/json", json.dumps(payload).encode("utf-8"), headers)

        def _raw(self, status: int, content_type: str, data: bytes, headers: dict | None = None):
            try:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, str(v))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                with server._lock:
                    server.disconnects += 1  # the client gave up (timeout); counted for tests

    return Handler
