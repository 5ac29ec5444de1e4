"""``dynalab check`` from Python: a design (any format the command line reads) checked in process,
its report as typed values, and a one-line gate for CI."""

import json
import os
from dataclasses import dataclass, field

from . import _dynalab


class DesignError(ValueError):
    """The design could not be checked: ``problems`` lists each, with its path in the file."""

    def __init__(self, problems, notes):
        super().__init__("\n".join(problems))
        self.problems = problems
        self.notes = notes


@dataclass(frozen=True)
class PatternVerdict:
    id: str
    description: str
    operation: str
    verdict: str
    reasons: list
    read_units: float
    write_units: float
    monthly_at_peak: float
    proposed: bool


@dataclass(frozen=True)
class DesignReport:
    """The report ``dynalab check --format json`` writes, with its main facts as attributes."""

    verdict: str
    proven: bool
    summary: str
    patterns: list
    monthly_at_peak: float
    declared_monthly: float
    source: str
    notes: list
    markdown: str
    report: dict = field(repr=False)

    @property
    def failed(self):
        """The confirmed patterns that fail (proposals never count)."""
        return [p for p in self.patterns if p.verdict == "fail" and not p.proposed]

    def pattern(self, pattern_id):
        return next(p for p in self.patterns if p.id == pattern_id)


def _text(design):
    if isinstance(design, dict):
        return json.dumps(design)
    if isinstance(design, os.PathLike) or (isinstance(design, str) and not design.lstrip()[:1] in ("{", "[") and os.path.exists(design)):
        with open(design, encoding="utf-8") as file:
            return file.read()
    return design


def check(design, *, start=None):
    """Checks ``design`` (a path, its text, or a dict) as ``dynalab check`` does, on fresh engines:
    a :class:`DesignReport`; raises :class:`DesignError` when it cannot be checked."""
    try:
        answer = json.loads(_dynalab.check(_text(design), start))
    except ValueError as error:
        if isinstance(error, json.JSONDecodeError):
            raise
        lines = str(error).splitlines()
        problems = [line for line in lines if not line.startswith("note: ")]
        notes = [line[len("note: "):] for line in lines if line.startswith("note: ")]
        raise DesignError(problems, notes) from None
    report = answer["report"]
    patterns = [
        PatternVerdict(
            id=p["id"], description=p["description"], operation=p["operation"], verdict=p["verdict"],
            reasons=p["reasons"], read_units=p["read_units"], write_units=p["write_units"],
            monthly_at_peak=p["monthly_at_peak"], proposed=p.get("proposed", False),
        )
        for p in report["patterns"]
    ]
    cost = report["cost"]["at_peak"]
    return DesignReport(
        verdict=answer["verdict"], proven=answer["proven"], summary=report["summary"], patterns=patterns,
        monthly_at_peak=cost["reads"] + cost["writes"] + cost["storage"],
        declared_monthly=report["declared"]["monthly"], source=answer["source"], notes=answer["notes"],
        markdown=answer["markdown"], report=report,
    )


def assert_design(design, *, allow_warnings=True):
    """Fails (``AssertionError``) when a confirmed pattern or the declared capacity fails — or, with
    ``allow_warnings=False``, warns — naming each with its reason. Returns the report."""
    report = check(design)
    bad = {"fail"} if allow_warnings else {"fail", "warn"}
    findings = [f"{p.id} ({p.verdict}): {p.reasons[0] if p.reasons else ''}" for p in report.patterns
                if p.verdict in bad and not p.proposed]
    findings += [f"{c['text']}" for c in report.report["capacity"] if c["verdict"] in bad]
    if findings:
        raise AssertionError(f"design {report.report['name']!r}: " + "; ".join(findings))
    return report
