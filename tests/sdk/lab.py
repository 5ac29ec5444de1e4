"""What the boto3 scenarios share: a session with throwaway credentials against the endpoint given
as the first argument, and a tally of named checks."""

import sys

import boto3
from botocore.config import Config

endpoint = sys.argv[1]
session = boto3.session.Session(aws_access_key_id="lab", aws_secret_access_key="lab", region_name="us-east-1")
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
        print(f"{label}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)
