"""The engine: DynamoDB's operations on tables held in this process."""

import json
import os

from ._dynalab import RawEngine
from .items import to_dynamodb_json

API_VERSION = "DynamoDB_20120810"
STREAMS_VERSION = "DynamoDBStreams_20120810"
STREAMS_OPERATIONS = {"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"}


class DynamoDBError(Exception):
    """An error as DynamoDB answers it: ``code`` (``ConditionalCheckFailedException``), ``message``,
    the HTTP ``status`` and the whole ``response`` body (``CancellationReasons``, ``Item``...)."""

    def __init__(self, code, message, status, response):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.response = response


class Engine:
    """One engine: its tables, items, streams and clock, independent of every other.

    ``start`` fixes the clock (milliseconds since the epoch; it then moves only when advanced),
    so TTL and timestamps are reproducible; without it the clock is the wall clock.
    """

    def __init__(self, start=None):
        self._raw = RawEngine(start)

    # The wire, as botocore sends it (the mock's handler calls this).
    def exchange(self, target, body):
        """One request as the JSON 1.0 protocol carries it: ``(status, body text, crc32)``."""
        if isinstance(body, (bytes, bytearray)):
            body = body.decode("utf-8")
        return self._raw.exchange(target, body or "{}")

    def call(self, operation, request=None):
        """Runs ``operation`` (``"PutItem"``) on a request in DynamoDB JSON (a dict); the response
        as a dict, or raises :class:`DynamoDBError` with DynamoDB's code and message."""
        prefix = STREAMS_VERSION if operation in STREAMS_OPERATIONS else API_VERSION
        status, body, _ = self._raw.exchange(f"{prefix}.{operation}", json.dumps(request or {}))
        answer = json.loads(body) if body else {}
        if status != 200:
            code = answer.get("__type", "").rsplit("#", 1)[-1]
            message = answer.get("message", answer.get("Message", ""))
            raise DynamoDBError(code, message, status, answer)
        return answer

    @property
    def last_capacity(self):
        """What the last call consumed, whether or not it asked for ``ReturnConsumedCapacity``:
        ``{"total", "read", "write", "tables": {name: {"read", "write", "total"}},
        "indexes": {"table/index": {...}}, "vector_bytes": {"table/index": bytes}, "steps": [...]}``,
        each step with its arithmetic (``"4,000 B → 1 × 4 KB → ×½ eventually consistent = 0.5 RCU"``);
        a vector index bills bytes (a search's, a write's), never units."""
        return json.loads(self._raw.last_capacity())

    def load(self, items, table=None):
        """Writes items, all or nothing: a list of dicts (plain Python values or DynamoDB JSON),
        fixture text (a JSON array, a BatchWriteItem request, export JSON lines), or the path of
        such a file. ``table`` names the table where the items do not. Returns how many writes."""
        if isinstance(items, (str, bytes, os.PathLike)) and _is_path(items):
            with open(items, encoding="utf-8") as file:
                text = file.read()
        elif isinstance(items, (str, bytes)):
            text = items.decode("utf-8") if isinstance(items, bytes) else items
        else:
            text = json.dumps([to_dynamodb_json(item) for item in items])
        return self._raw.load(text, table)

    def snapshot(self):
        """Every table and item as text (the playground's workspace format): restore it later."""
        return self._raw.snapshot()

    def restore(self, snapshot):
        """Puts back what :meth:`snapshot` took; on a problem nothing changes (``ValueError``)."""
        self._raw.restore(snapshot)

    @property
    def now(self):
        """The lab clock, in milliseconds since the epoch."""
        return self._raw.now()

    def advance_clock(self, seconds=0, *, minutes=0, hours=0, days=0):
        """Moves the clock forward and runs DynamoDB's TTL process: how many expired items it
        removed (each with its stream record)."""
        millis = int(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000)
        if millis < 0:
            raise ValueError("the lab clock only moves forward")
        return self._raw.advance_clock(millis)

    def stream_records(self):
        """The stream records written since the last call, as GetRecords shows them: a list of
        ``{"table", "record"}``."""
        return json.loads(self._raw.stream_records())


def _is_path(value):
    if isinstance(value, os.PathLike):
        return True
    if isinstance(value, bytes):
        return False
    stripped = value.lstrip()
    return bool(stripped) and stripped[0] not in "[{" and os.path.exists(value)
