//! Numbers as people read them.

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Up to two decimals, without trailing zeros: `2.5`, `0.13`, `120` (never `-0`).
pub fn decimal(value: f64) -> String {
    let text = format!("{:.2}", value + 0.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_drop_trailing_zeros() {
        assert_eq!(super::decimal(120.0), "120");
        assert_eq!(super::decimal(2.5), "2.5");
        assert_eq!(super::decimal(0.125), "0.12");
        assert_eq!(super::decimal(-0.0), "0");
        assert_eq!(super::decimal(-0.001), "0");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1_000), "1,000");
        assert_eq!(super::thousands(42_500_000), "42,500,000");
    }
}
