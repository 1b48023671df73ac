"""Findings in the formats other tools read: SARIF 2.1.0 (code scanning, editors' SARIF viewers) and
GitHub Actions workflow commands (annotations on a pull request's files)."""

from __future__ import annotations

from typing import Any

from ... import __version__
from ...core.kinds import kind_of
from ...core.model import Finding, ReplaceRefFix, ReplaceTextFix, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.error: "error", Severity.warning: "warning", Severity.info: "note"}
_GITHUB = {Severity.error: "error", Severity.warning: "warning", Severity.info: "notice"}


def sarif(findings: list[Finding], suppressed: list[Finding]) -> dict[str, Any]:
    """One run of Lorekeeper as a SARIF log: a rule per finding kind met, a result per finding (paths
    relative to the workspace root, ``%SRCROOT%``), suppressed findings listed with their justification,
    and a fix where Lorekeeper knows the replacement text."""
    everything = [*findings, *suppressed]
    kinds = sorted({f.kind for f in everything})
    rules = [_rule(kind) for kind in kinds]
    index = {kind: i for i, kind in enumerate(kinds)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "Lorekeeper", "version": __version__, "semanticVersion": __version__,
                                "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the workspace root"}}},
            "results": [_result(f, index[f.kind]) for f in everything],
        }],
    }


def _rule(kind: str) -> dict[str, Any]:
    known = kind_of(kind)
    return {"id": kind, "name": kind.title().replace("-", ""),
            "shortDescription": {"text": f"{known.family.value}: {kind}"},
            "help": {"text": f"See docs/{known.page} in Lorekeeper's documentation."},
            "defaultConfiguration": {"level": _LEVEL[known.severity]},
            "properties": {"family": known.family.value}}


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": finding.line or 1}
    if finding.column:
        region["startColumn"] = finding.column
    location = {"physicalLocation": {"artifactLocation": {"uri": finding.source, "uriBaseId": "%SRCROOT%"},
                                     "region": region}}
    result: dict[str, Any] = {"ruleId": finding.kind, "ruleIndex": rule_index, "level": _LEVEL[finding.severity],
                              "message": {"text": finding.message}, "locations": [location]}
    if finding.related:
        result["relatedLocations"] = [
            {"id": n, "message": {"text": str(other.get("message", ""))},
             "physicalLocation": {"artifactLocation": {"uri": str(other.get("source")), "uriBaseId": "%SRCROOT%"},
                                  "region": {"startLine": int(other.get("line") or 1)}}}
            for n, other in enumerate(finding.related)]
    properties: dict[str, Any] = {}
    if finding.ref:
        properties["ref"] = finding.ref
    if finding.commit:
        properties["commit"] = finding.commit
    if finding.entry:
        properties["entry"] = finding.entry
    if properties:
        result["properties"] = properties
    if isinstance(finding.fix, (ReplaceRefFix, ReplaceTextFix)):
        result["fixes"] = [{"description": {"text": f"use {finding.fix.new}"}}]
    if finding.suppressed is not None:
        in_source = not finding.suppressed.startswith(".lore/config.toml")
        result["suppressions"] = [{"kind": "inSource" if in_source else "external", "status": "accepted",
                                   "justification": finding.suppressed}]
    return result


def github(findings: list[Finding]) -> list[str]:
    """GitHub Actions workflow commands, one per finding: ``::error file=F,line=N,title=T::message``."""
    return [f"::{_GITHUB[f.severity]} file={_property(f.source)},line={f.line or 1},"
            f"title={_property('Lorekeeper ' + f.kind)}::{_data(f.message)}" for f in findings]


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
