"""Dynalab for Python: DynamoDB's exact semantics in process.

``with dynalab.mock_dynamodb():`` (or the ``@dynalab.mock_dynamodb()`` decorator, or the pytest
fixture ``dynalab_dynamodb``) answers every DynamoDB and DynamoDB Streams call of the boto3 and
botocore clients and resources inside it from an engine in this process: the same bytes
``dynalab serve`` sends, through botocore's own ``before-send`` event, so retries, paginators,
waiters, the resource layer and the batch writer work unchanged. No socket is opened.

``dynalab.Engine()`` is the engine itself: ``call(operation, request)`` for code that does not use
boto3, fixtures, snapshots, the lab clock, stream records and the capacity of the last call.
``dynalab.check(design)`` runs ``dynalab check`` on a design and returns its report.
"""

from ._dynalab import __version__, operations
from .check import DesignError, DesignReport, assert_design, check
from .engine import DynamoDBError, Engine
from .mock import mock_dynamodb

__all__ = [
    "DesignError",
    "DesignReport",
    "DynamoDBError",
    "Engine",
    "__version__",
    "assert_design",
    "check",
    "mock_dynamodb",
    "operations",
]
