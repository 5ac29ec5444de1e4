"""The pytest fixture ``dynalab_dynamodb``: an engine answering every boto3 DynamoDB call made
during the test, fresh for each test (loaded through the ``dynalab`` entry point)."""

import pytest

from .mock import mock_dynamodb


@pytest.fixture
def dynalab_dynamodb():
    """A :class:`dynalab.Engine` that answers DynamoDB for the length of one test."""
    with mock_dynamodb() as engine:
        yield engine
