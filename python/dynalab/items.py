"""Plain Python values as DynamoDB JSON, exactly: numbers keep their text (``Decimal``, ``int``),
sets and bytes keep their types. An item already in DynamoDB JSON passes as it is."""

import base64
from decimal import Decimal

TYPES = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}


def _is_typed(value):
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in TYPES


def to_dynamodb_json(item):
    """``{"pk": "a", "n": 1}`` → ``{"pk": {"S": "a"}, "n": {"N": "1"}}``; an item whose every
    attribute is already typed is returned unchanged."""
    if not isinstance(item, dict):
        raise TypeError(f"an item is a dict, not {type(item).__name__}")
    if item and all(_is_typed(v) for v in item.values()):
        return item
    return {name: attribute(value) for name, value in item.items()}


def _number(value):
    if isinstance(value, float) and value != value:
        raise ValueError("NaN is not a DynamoDB number")
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        raise ValueError("Infinity is not a DynamoDB number")
    return str(value)


def attribute(value):
    """One plain value as a DynamoDB JSON attribute value."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, float, Decimal)):
        return {"N": _number(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, (bytes, bytearray)):
        return {"B": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (set, frozenset)):
        members = list(value)
        if members and all(isinstance(m, str) for m in members):
            return {"SS": sorted(members)}
        if members and all(isinstance(m, (int, float, Decimal)) and not isinstance(m, bool) for m in members):
            return {"NS": [_number(m) for m in members]}
        if members and all(isinstance(m, (bytes, bytearray)) for m in members):
            return {"BS": [base64.b64encode(bytes(m)).decode("ascii") for m in members]}
        raise TypeError("a set holds only strings, only numbers or only bytes, and at least one")
    if isinstance(value, (list, tuple)):
        return {"L": [attribute(v) for v in value]}
    if isinstance(value, dict):
        return {"M": {k: attribute(v) for k, v in value.items()}}
    raise TypeError(f"{type(value).__name__} is not a DynamoDB type")
