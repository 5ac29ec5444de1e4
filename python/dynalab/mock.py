"""Every DynamoDB and DynamoDB Streams call of botocore answered in process.

botocore emits ``before-send`` with the prepared request just before it would open a connection;
a handler that returns a response ends the call there. Dynalab registers one with botocore's
built-in handlers (so every session made from now on has it) and, inside ``mock_dynamodb()``,
answers requests whose ``X-Amz-Target`` is DynamoDB's or DynamoDB Streams' with the engine's bytes.
Outside, and for every other service, it returns nothing and botocore goes on as usual.
"""

import functools
import gzip
import io
import os
import threading
import uuid

try:
    from botocore.awsrequest import AWSResponse
    from botocore.handlers import BUILTIN_HANDLERS
except ImportError:  # botocore is optional: the Engine, check and assert_design work without it
    AWSResponse = BUILTIN_HANDLERS = None

from .engine import API_VERSION, STREAMS_VERSION, Engine

_PREFIXES = (API_VERSION + ".", STREAMS_VERSION + ".")
# Credentials for clients made inside the mock when the environment has none: botocore signs
# every request before ``before-send``, and the engine, like DynamoDB Local, accepts any.
_ENVIRONMENT = {"AWS_ACCESS_KEY_ID": "dynalab", "AWS_SECRET_ACCESS_KEY": "dynalab", "AWS_DEFAULT_REGION": "us-east-1"}

_lock = threading.Lock()
_active = []


class _Body(io.BytesIO):
    """The raw body botocore reads a response from (``stream()``, as urllib3's)."""

    def stream(self, **_):
        chunk = self.read()
        while chunk:
            yield chunk
            chunk = self.read()


def _answer(request, **_):
    if not _active:
        return None
    target = request.headers.get("X-Amz-Target")
    if isinstance(target, bytes):
        target = target.decode("ascii", "replace")
    if not target or not target.startswith(_PREFIXES):
        return None
    engine = _active[-1]
    body = request.body
    if hasattr(body, "read"):
        body = body.read()
    encoding = request.headers.get("Content-Encoding")
    if isinstance(encoding, bytes):
        encoding = encoding.decode("ascii", "replace")
    if encoding and encoding.strip().lower() == "gzip" and body:
        # botocore compresses a request when the operation's model asks it to; the server inflates it.
        body = gzip.decompress(body if isinstance(body, bytes) else body.encode("utf-8"))
    status, body, crc32 = engine.exchange(target, body)
    data = body.encode("utf-8")
    headers = {
        "Content-Type": "application/x-amz-json-1.0",
        "Content-Length": str(len(data)),
        "x-amz-crc32": str(crc32),
        "x-amzn-RequestId": uuid.uuid4().hex.upper(),
    }
    return AWSResponse(request.url, status, headers, _Body(data))


if BUILTIN_HANDLERS is not None and ("before-send", _answer) not in BUILTIN_HANDLERS:
    BUILTIN_HANDLERS.append(("before-send", _answer))


def mock_dynamodb(engine=None, *, start=None):
    """Answers DynamoDB in process while active: ``with mock_dynamodb() as engine: ...``, or
    ``@mock_dynamodb`` / ``@mock_dynamodb()`` on a function. Clients and resources made inside are
    answered by ``engine`` (a fresh :class:`~dynalab.Engine`, or the one given; ``start`` fixes a
    fresh engine's clock). Nested mocks stack: the innermost answers."""
    if callable(engine) and not isinstance(engine, Engine):
        return Mock()(engine)
    return Mock(engine, start=start)


class Mock:
    """An active or inactive mock: ``start()`` / ``stop()``, a context manager, a decorator."""

    def __init__(self, engine=None, *, start=None):
        self._given = engine
        self._start = start
        self.engine = engine if engine is not None else Engine(start=start)
        self._saved_environment = {}
        self._saved_session = None

    def start(self):
        if AWSResponse is None:
            raise ImportError("mock_dynamodb answers botocore: install boto3 (pip install boto3)")
        with _lock:
            for name, value in _ENVIRONMENT.items():
                if name not in os.environ:
                    self._saved_environment[name] = None
                    os.environ[name] = value
            self._reset_default_session()
            _active.append(self.engine)
        return self.engine

    def stop(self):
        with _lock:
            if self.engine in _active:
                _active.remove(self.engine)
            for name in self._saved_environment:
                os.environ.pop(name, None)
            self._saved_environment = {}
            self._restore_default_session()

    def _reset_default_session(self):
        # boto3's default session may predate this module's handler: clients made from it inside
        # the mock would not have it, so a fresh one is used while the mock is active.
        try:
            import boto3
        except ImportError:
            return
        self._saved_session = boto3.DEFAULT_SESSION
        boto3.DEFAULT_SESSION = None

    def _restore_default_session(self):
        try:
            import boto3
        except ImportError:
            return
        boto3.DEFAULT_SESSION = self._saved_session
        self._saved_session = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *_):
        self.stop()

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            # Each call of the decorated function starts from an empty engine unless one was given.
            with Mock(self._given, start=self._start):
                return function(*args, **kwargs)

        return wrapper
