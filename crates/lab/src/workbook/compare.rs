//! Two designs side by side: per pattern (matched by id, in the first design's order, then the
//! second's own), units, monthly cost and verdict; and the totals. "Here's the bill, here's the
//! cheaper design" in one report.

use super::analysis::{DesignResult, PatternResult};
use super::report::{money, pattern_units};
use serde_json::json;
use std::fmt::Write as _;

/// Pattern ids of both designs: the first's, then those only the second has.
pub fn pattern_ids<'a>(a: &'a DesignResult, b: &'a DesignResult) -> Vec<&'a str> {
    let mut ids: Vec<&str> = a.patterns.iter().map(|p| p.id.as_str()).collect();
    ids.extend(b.patterns.iter().map(|p| p.id.as_str()).filter(|id| !a.patterns.iter().any(|p| p.id == *id)));
    ids
}

fn find<'a>(design: &'a DesignResult, id: &str) -> Option<&'a PatternResult> {
    design.patterns.iter().find(|p| p.id == id)
}

fn side(p: Option<&PatternResult>) -> String {
    p.map_or_else(
        || "— | — | — | —".into(),
        |p| format!("{} | {} | {} | {}", p.operation, pattern_units(p).0, money(p.monthly_at_peak), p.verdict.label()),
    )
}

fn signed(delta: f64) -> String {
    if delta.abs() < 0.005 {
        "$0.00".into()
    } else if delta > 0.0 {
        format!("+{}", money(delta))
    } else {
        format!("−{}", money(-delta))
    }
}

/// `fail`, or `nothing proven` for a design without patterns of its own.
fn verdict(design: &DesignResult) -> String {
    if design.proven {
        design.verdict.label().to_string()
    } else {
        format!("nothing proven ({})", design.verdict.label())
    }
}

/// `on demand`, `provisioned`, or each table's mode when they differ (`provisioned: a; on demand: b`).
pub fn billing(design: &DesignResult) -> String {
    let mut modes: Vec<(&str, Vec<&str>)> = Vec::new();
    for table in &design.declared.tables {
        match modes.iter_mut().find(|(mode, _)| *mode == table.billing) {
            Some((_, tables)) => tables.push(&table.table),
            None => modes.push((table.billing, vec![&table.table])),
        }
    }
    match modes.as_slice() {
        [(mode, _)] => (*mode).to_string(),
        _ => modes.iter().map(|(mode, tables)| format!("{mode}: {}", tables.join(", "))).collect::<Vec<_>>().join("; "),
    }
}

/// The billing mode of the table a pattern runs on.
pub fn pattern_billing<'a>(design: &'a DesignResult, pattern: &PatternResult) -> &'a str {
    design.declared.tables.iter().find(|t| t.table == pattern.table).map_or("on demand", |t| t.billing)
}

/// One pattern of `design` as a comparison shows it: call · units · what it costs under its
/// table's billing mode · verdict (`—` when the design has no such pattern).
pub fn pattern_side(design: &DesignResult, id: &str) -> String {
    let Some(p) = find(design, id) else { return "—".into() };
    let cost = if pattern_billing(design, p) == "provisioned" {
        let prices = &design.cost.prices;
        let (rate, unit, hourly) = match p.kind {
            crate::workbook::PatternKind::Write => (p.write_units_at_peak, "WCU", prices.wcu_hour),
            crate::workbook::PatternKind::Read => (p.read_units_at_peak, "RCU", prices.rcu_hour),
        };
        format!(
            "provisioned: {} {unit}/s at peak, {} of capacity a month",
            crate::numbers::decimal(rate),
            money(rate * hourly * crate::workbook::prices::HOURS_PER_MONTH)
        )
    } else {
        format!("on demand: {} a month at peak", money(p.monthly_at_peak))
    };
    format!("{} · {} · {cost} · {}", p.operation, pattern_units(p).0, p.verdict.label())
}

/// Both designs' totals, each beside its verdict and billing mode: a failing design is never
/// just "cheaper".
pub fn totals_line(a: &DesignResult, b: &DesignResult) -> String {
    let one = |label: &str, design: &DesignResult| {
        let mode = billing(design);
        let bill = if design.declared.tables.iter().any(|t| t.billing == "provisioned") {
            format!(
                "{} a month of declared capacity ({} at peak if it were on demand)",
                declared(design),
                money(design.cost.at_peak.total())
            )
        } else {
            format!("{} a month at peak", money(design.cost.at_peak.total()))
        };
        format!("{label}, {} — {mode}: {bill}.", verdict(design))
    };
    format!("{} {}", one("A", a), one("B", b))
}

fn declared(design: &DesignResult) -> String {
    let d = &design.declared;
    if d.tables.iter().all(|t| t.targets.is_empty()) {
        return "— (on demand)".into();
    }
    if (d.monthly_max - d.monthly_min).abs() < 0.005 {
        money(d.monthly)
    } else {
        format!("{} ({}–{} auto scaled)", money(d.monthly), money(d.monthly_min), money(d.monthly_max))
    }
}

/// The comparison as Markdown.
pub fn markdown(a: &DesignResult, b: &DesignResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Design comparison: {} (A) and {} (B)\n", a.name, b.name);
    let _ = writeln!(out, "| | A: {} | B: {} | B − A |\n|---|---|---|---|", a.name, b.name);
    let _ = writeln!(out, "| Verdict | {} | {} | |", verdict(a), verdict(b));
    let _ = writeln!(out, "| Billing mode | {} | {} | |", billing(a), billing(b));
    let _ = writeln!(
        out,
        "| Declared capacity per month (provisioned as declared) | {} | {} | {} |",
        declared(a),
        declared(b),
        signed(b.declared.monthly - a.declared.monthly)
    );
    let _ = writeln!(
        out,
        "| Monthly at peak (on demand) | {} | {} | {} |",
        money(a.cost.at_peak.total()),
        money(b.cost.at_peak.total()),
        signed(b.cost.at_peak.total() - a.cost.at_peak.total())
    );
    if let (Some(ea), Some(eb)) = (&a.cost.expected, &b.cost.expected) {
        let _ = writeln!(
            out,
            "| Monthly expected (average rates) | {} | {} | {} |",
            money(ea.total()),
            money(eb.total()),
            signed(eb.total() - ea.total())
        );
    }
    let _ = writeln!(
        out,
        "| Provisioned for peak | {} | {} | {} |",
        money(a.cost.provisioned.total()),
        money(b.cost.provisioned.total()),
        signed(b.cost.provisioned.total() - a.cost.provisioned.total())
    );
    let _ = writeln!(
        out,
        "| Storage | {:.3} GB | {:.3} GB | {:+.3} GB |",
        a.cost.storage_gb,
        b.cost.storage_gb,
        b.cost.storage_gb - a.cost.storage_gb
    );
    let _ = writeln!(out, "\n## Per pattern (on demand at peak)\n");
    let _ = writeln!(
        out,
        "| # | Pattern | A: operation | A: units | A: $/month | A: verdict | B: operation | B: units | B: $/month | B: verdict | B − A |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    for id in pattern_ids(a, b) {
        let (pa, pb) = (find(a, id), find(b, id));
        let description = pa.or(pb).map_or("", |p| p.description.as_str()).replace('|', "\\|");
        let delta = match (pa, pb) {
            (Some(pa), Some(pb)) => signed(pb.monthly_at_peak - pa.monthly_at_peak),
            _ => "only in one".into(),
        };
        let _ = writeln!(out, "| {id} | {description} | {} | {} | {delta} |", side(pa), side(pb));
    }
    for (label, design) in [("A", a), ("B", b)] {
        let findings: Vec<String> = design
            .patterns
            .iter()
            .filter(|p| p.verdict != super::analysis::Verdict::Pass)
            .map(|p| format!("- {} ({}): {}", p.id, p.verdict.label(), p.reasons.first().cloned().unwrap_or_default()))
            .collect();
        if !findings.is_empty() {
            let _ = writeln!(out, "\n## {label}: findings\n\n{}", findings.join("\n"));
        }
    }
    out
}

/// The comparison as JSON: both reports and the per-pattern rows.
pub fn json(a: &DesignResult, b: &DesignResult) -> String {
    serde_json::to_string_pretty(&value(a, b)).unwrap_or_default() + "\n"
}

/// The comparison as a JSON value: `{"a", "b", "patterns", "monthly_at_peak_difference"}`.
pub fn value(a: &DesignResult, b: &DesignResult) -> serde_json::Value {
    json!({"a": a, "b": b, "patterns": rows(a, b),
        "billing": {"a": billing(a), "b": billing(b)},
        "declared_monthly": {"a": a.declared.monthly, "b": b.declared.monthly},
        "monthly_at_peak_difference": b.cost.at_peak.total() - a.cost.at_peak.total()})
}

/// One row per pattern id of either design: each side's call, units, cost and verdict.
pub fn rows(a: &DesignResult, b: &DesignResult) -> Vec<serde_json::Value> {
    pattern_ids(a, b)
        .into_iter()
        .map(|id| {
            let (pa, pb) = (find(a, id), find(b, id));
            json!({
                "id": id,
                "a": pa.map(|p| json!({"operation": p.operation, "read_units": p.read_units, "write_units": p.write_units,
                    "monthly_at_peak": p.monthly_at_peak, "verdict": p.verdict})),
                "b": pb.map(|p| json!({"operation": p.operation, "read_units": p.read_units, "write_units": p.write_units,
                    "monthly_at_peak": p.monthly_at_peak, "verdict": p.verdict})),
                "monthly_difference": match (pa, pb) { (Some(x), Some(y)) => json!(y.monthly_at_peak - x.monthly_at_peak), _ => json!(null) },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::check::check;
    use crate::workbook::Workbook;
    use dynalab_engine::FixedClock;
    use serde_json::Value;
    use std::sync::Arc;

    fn design(name: &str, billing: Value, operation: &str) -> DesignResult {
        let mut table = json!({"TableName": "things", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        for (k, v) in billing.as_object().cloned().unwrap_or_default() {
            table[k] = v;
        }
        let request = if operation == "Scan" {
            json!({"TableName": "things"})
        } else {
            json!({"TableName": "things", "Key": {"pk": {"S": "a"}}})
        };
        let workbook = json!({"format": crate::workbook::FORMAT, "name": name, "tables": [table],
            "fixtures": {"things": [{"pk": "a"}, {"pk": "b"}]},
            "patterns": [{"id": "1", "description": "get one", "type": "read", "peak_rps": 100, "consistency": "eventual",
                "requests": [{"operation": operation, "request": request}]}]});
        let workbook = Workbook::parse(&workbook.to_string()).expect("valid");
        check(&workbook, Arc::new(FixedClock::at(0))).expect("checks").result
    }

    #[test]
    fn each_side_says_its_billing_mode_and_each_total_its_verdict() {
        let scan = design("scan", json!({"BillingMode": "PAY_PER_REQUEST"}), "Scan");
        let provisioned = design(
            "provisioned",
            json!({"BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 10}}),
            "GetItem",
        );
        assert!(pattern_side(&scan, "1").starts_with("Scan · 0.5 RCU · on demand: $"), "{}", pattern_side(&scan, "1"));
        assert!(pattern_side(&scan, "1").ends_with("a month at peak · fail"));
        // 0.5 RCU × 100/s = 50 RCU/s, at $0.00013 an RCU-hour for 730 hours.
        assert_eq!(
            pattern_side(&provisioned, "1"),
            "GetItem · 0.5 RCU · provisioned: 50 RCU/s at peak, $4.75 of capacity a month · pass"
        );
        assert_eq!(pattern_side(&provisioned, "2"), "—");
        let totals = totals_line(&scan, &provisioned);
        assert!(totals.starts_with("A, fail — on demand: $"), "{totals}");
        assert!(totals.contains("a month at peak. B, pass — provisioned: $"), "{totals}");
        assert!(
            totals.ends_with("provisioned: $14.23 a month of declared capacity ($16.43 at peak if it were on demand)."),
            "{totals}"
        );
    }
}
