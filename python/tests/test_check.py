"""dynalab.check and assert_design: the report `dynalab check` writes, from Python."""

import json
from pathlib import Path

import pytest

import dynalab

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_passing_design_reports_its_verdicts_units_and_cost():
    report = dynalab.check(EXAMPLES / "orders-service.workbook.json")
    assert (report.verdict, report.proven) == ("pass", True)
    assert report.failed == []
    first = report.patterns[0]
    assert first.operation in {"GetItem", "Query"} and first.read_units > 0 and first.monthly_at_peak > 0
    assert report.monthly_at_peak > 0 and report.markdown.startswith("# Design check: ")
    golden = json.loads((EXAMPLES / "orders-service.report.json").read_text())
    assert report.report["patterns"] == golden["patterns"], "the command line's report"
    assert dynalab.assert_design(EXAMPLES / "orders-service.workbook.json").verdict == "pass"


def test_a_failing_design_fails_the_gate_naming_the_pattern():
    design = json.loads((EXAMPLES / "hot-counter.workbook.json").read_text())
    report = dynalab.check(design)
    assert report.verdict == "fail"
    with pytest.raises(AssertionError, match=r"C1 \(fail\): hot partition key"):
        dynalab.assert_design(design)


def test_a_design_that_cannot_be_checked_lists_its_problems():
    with pytest.raises(dynalab.DesignError) as refused:
        dynalab.check({"format": "dynalab-workbook/1", "name": "x", "tables": [], "patterns": [
            {"id": "a", "description": "d", "type": "read", "peak_rps": -1, "consistency": "eventual",
             "requests": [{"operation": "Select", "request": {}}]}]})
    assert len(refused.value.problems) == 3 and refused.value.problems[0] == "tables: at least one table"


def test_a_design_without_patterns_proves_nothing():
    model = Path(__file__).resolve().parents[2] / "tests/designs/workbench-online-shop-facets.json"
    report = dynalab.check(model)
    assert (report.proven, report.verdict) == (False, "pass")
    assert all(p.proposed for p in report.patterns) and report.patterns
