"""What the boto3 scenarios share: a session with throwaway credentials against the endpoint given
as the first argument — or `in-process` for the Python package's engine in this process (python/,
its botocore handler) — and a tally of named checks. With TRANSCRIPT=FILE every call's operation,
status and parsed answer is written to FILE, so two runs can be compared answer by answer."""

import atexit
import datetime
import json
import os
import sys

import boto3
from botocore.config import Config

endpoint = sys.argv[1]
in_process = endpoint == "in-process"
if in_process:
    import dynalab

    engine = dynalab.mock_dynamodb().start()
    endpoint = None
session = boto3.session.Session(aws_access_key_id="lab", aws_secret_access_key="lab", region_name="us-east-1")

# The two runs start at different times: what the wall clock makes (dates, table ids, stream labels
# and the ARNs and iterators that carry them) is a placeholder; everything else must match.
CLOCK_MADE = {"TableId", "StreamLabel", "LatestStreamLabel", "StreamArn", "LatestStreamArn", "ShardIterator",
              "NextShardIterator", "ShardId", "eventID", "ExclusiveStartShardId", "LastEvaluatedShardId",
              "LastEvaluatedStreamArn"}
transcript = []


def _plain(value, key=None):
    if key in CLOCK_MADE or isinstance(value, datetime.datetime):
        return "(from the clock)"
    if isinstance(value, dict):
        return {k: _plain(v, k) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": list(value)}
    return value


def _record(http_response, parsed, model, **_):
    transcript.append({"operation": model.name, "status": http_response.status_code, "answer": _plain(parsed)})


session.events.register("after-call.dynamodb", _record)
session.events.register("after-call.dynamodb-streams", _record)


@atexit.register
def _write_transcript():
    if os.environ.get("TRANSCRIPT"):
        with open(os.environ["TRANSCRIPT"], "w", encoding="utf-8") as file:
            json.dump(transcript, file, indent=1, default=str)
# One attempt: a scenario must see the first answer, not a retried one.
config = Config(retries={"max_attempts": 1})


def client(service="dynamodb"):
    return session.client(service, endpoint_url=endpoint, config=config)


def resource():
    return session.resource("dynamodb", endpoint_url=endpoint, config=config)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def __call__(self, name, condition):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {name}")

    def finish(self, label):
        print(f"{label}{' (in-process)' if in_process else ''}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)
