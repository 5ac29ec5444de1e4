//! DynamoDB's reserved words: a bare attribute name that is one of them is refused.

use std::collections::HashSet;
use std::sync::OnceLock;

const LIST: &str = include_str!("reserved_words.txt");

/// `SIZE` and `CONVERT` are on AWS's list, but DynamoDB accepts them as plain attribute names
/// (measured, fact sheet §6); the grammar's own keywords fail earlier, as syntax errors.
const ACCEPTED_ANYWAY: [&str; 2] = ["SIZE", "CONVERT"];

fn words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        LIST.lines()
            .map(str::trim)
            .filter(|w| !w.is_empty() && !w.starts_with('#') && !ACCEPTED_ANYWAY.contains(w))
            .collect()
    })
}

/// True if `name`, matched case-insensitively, is reserved.
pub fn is_reserved(name: &str) -> bool {
    if name.len() > 20 {
        return false;
    }
    words().contains(name.to_ascii_uppercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_all_573_words_less_the_two_accepted() {
        assert_eq!(words().len(), 571);
        assert!(is_reserved("status") && is_reserved("Data") && is_reserved("FLATTERN"));
        assert!(!is_reserved("size") && !is_reserved("convert") && !is_reserved("begins_with"));
    }
}
