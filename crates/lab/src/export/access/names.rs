//! Names in generated code: a list of words, spelled as each language spells it.

/// A name as lowercase words: `["users", "orders"]` → `usersOrders`, `users_orders`, `UsersOrders`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Words(Vec<String>);

/// Reserved in TypeScript or Python: a one-word name that is one gets the pattern's id.
const RESERVED: [&str; 40] = [
    "and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue", "def", "default",
    "del", "delete", "do", "else", "enum", "export", "false", "finally", "for", "from", "function", "global", "if",
    "import", "in", "is", "let", "new", "not", "or", "pass", "return", "switch", "this", "true", "try", "while",
];

impl Words {
    /// The words of any text: `open_wh` → open, wh; `ORDER` → order; `user's` → users.
    pub fn of(text: &str) -> Self {
        let text = text.replace(['\'', '’'], "");
        let mut words = Vec::new();
        for part in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
            // camelCase inside a part splits too: `openWh` → open, wh.
            let mut word = String::new();
            let mut previous_lower = false;
            for c in part.chars() {
                if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
                word.push(c.to_ascii_lowercase());
            }
            if !word.is_empty() {
                words.push(word);
            }
        }
        Self(words)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// These words and then those of `text`.
    pub fn with(mut self, text: &str) -> Self {
        self.0.extend(Self::of(text).0);
        self
    }

    pub fn camel(&self) -> String {
        let mut out = String::new();
        for (i, word) in self.0.iter().enumerate() {
            if i == 0 {
                out.push_str(word);
            } else {
                out.push_str(&capitalized(word));
            }
        }
        leading_letter(out, "p")
    }

    pub fn pascal(&self) -> String {
        leading_letter(self.0.iter().map(|w| capitalized(w)).collect(), "T")
    }

    pub fn snake(&self) -> String {
        leading_letter(self.0.join("_"), "p_")
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| first.to_ascii_uppercase().to_string() + chars.as_str())
}

fn leading_letter(name: String, prefix: &str) -> String {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}{name}")
    } else {
        name
    }
}

/// Words that say nothing in a function's name.
const FILLER: [&str; 3] = ["a", "an", "the"];

/// A function's name from its pattern's description: the words before the first clause mark
/// (`Place an order: take stock…` → placeOrder), at most six, articles dropped; the pattern's id
/// when nothing is left or the name would be a reserved word.
pub(crate) fn function_name(description: &str, id: &str) -> Words {
    let head = description.split([':', ',', '(', ';', '—', '.']).next().unwrap_or(description);
    let words: Vec<String> = Words::of(head).0.into_iter().filter(|w| !FILLER.contains(&w.as_str())).take(6).collect();
    let name = Words(words);
    if name.is_empty() {
        return Words::of(id);
    }
    if name.0.len() == 1 && RESERVED.contains(&name.0[0].as_str()) {
        return name.with(id);
    }
    name
}

/// A parameter's name from a key value's label (`USER#ada` → userId) or, without one, from the
/// attribute it is a value of (`open_wh` → openWh).
pub(crate) fn parameter_name(label: Option<&str>, attribute: &str) -> Words {
    match label {
        Some(label) => Words::of(label).with("id"),
        None => {
            let words = Words::of(attribute);
            if words.is_empty() || (words.0.len() == 1 && RESERVED.contains(&words.0[0].as_str())) {
                words.with("value")
            } else {
                words
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_spelled_per_language() {
        let words = Words::of("A user's orders");
        assert_eq!(words.camel(), "aUsersOrders");
        assert_eq!(words.snake(), "a_users_orders");
        assert_eq!(Words::of("open_wh").pascal(), "OpenWh");
        assert_eq!(Words::of("openWh").snake(), "open_wh");
        assert_eq!(Words::of("2fa codes").camel(), "p2faCodes");
    }

    #[test]
    fn a_function_is_named_after_its_pattern() {
        assert_eq!(function_name("Get a user's profile", "AP1").camel(), "getUsersProfile");
        assert_eq!(function_name("Place an order: take stock, write order", "AP5").camel(), "placeOrder");
        assert_eq!(
            function_name("Open orders of a warehouse, oldest first (sparse GSI)", "AP4").snake(),
            "open_orders_of_warehouse"
        );
        assert_eq!(function_name("Delete", "AP9").camel(), "deleteAp9");
        assert_eq!(function_name("—", "AP9").camel(), "ap9");
    }

    #[test]
    fn a_parameter_is_named_after_its_label_or_attribute() {
        assert_eq!(parameter_name(Some("USER"), "pk").camel(), "userId");
        assert_eq!(parameter_name(None, "open_wh").camel(), "openWh");
        assert_eq!(parameter_name(None, "from").snake(), "from_value");
    }
}
