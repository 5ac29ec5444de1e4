"""Shared helpers: a table maker, and a guard that fails any test that touches the network."""

import socket

import boto3
import pytest


@pytest.fixture
def no_network(monkeypatch):
    """Any connect or bind during the test fails it: the engine must answer in process."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a socket was used: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket.socket, "bind", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def client(dynalab_dynamodb, no_network):
    return boto3.client("dynamodb", region_name="us-east-1")


@pytest.fixture
def resource(dynalab_dynamodb, no_network):
    return boto3.resource("dynamodb", region_name="us-east-1")


def make_orders(client, stream=False):
    """`orders`: pk (S) + sk (N), a KEYS_ONLY GSI on status, TTL on `expires`."""
    extra = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}} if stream else {}
    client.create_table(
        TableName="orders",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byStatus",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
