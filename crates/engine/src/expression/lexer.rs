//! Splits an expression into tokens, keeping each token's byte span for DynamoDB's "near" messages.

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A bare word: an attribute name, a function name or a keyword.
    Word(String),
    /// `#name`
    Name(String),
    /// `:value`
    Value(String),
    /// Digits, as in a list index.
    Digits(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    /// A character no token starts with.
    Unknown(char),
    Eof,
}

/// A token and where it stands in the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Tokens of `text`, ending with one `Eof`.
pub fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let take_word = |from: usize| {
            let mut j = from;
            while j < bytes.len() && is_word_byte(bytes[j]) {
                j += 1;
            }
            j
        };
        let (tok, end) = match b {
            b'#' | b':' => {
                let end = take_word(i + 1);
                let text = text[start..end].to_string();
                (if b == b'#' { Tok::Name(text) } else { Tok::Value(text) }, end)
            }
            b'0'..=b'9' => {
                let mut j = i;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                (Tok::Digits(text[start..j].to_string()), j)
            }
            _ if is_word_byte(b) => {
                let end = take_word(i);
                (Tok::Word(text[start..end].to_string()), end)
            }
            b'(' => (Tok::LParen, i + 1),
            b')' => (Tok::RParen, i + 1),
            b'[' => (Tok::LBracket, i + 1),
            b']' => (Tok::RBracket, i + 1),
            b',' => (Tok::Comma, i + 1),
            b'.' => (Tok::Dot, i + 1),
            b'=' => (Tok::Eq, i + 1),
            b'+' => (Tok::Plus, i + 1),
            b'-' => (Tok::Minus, i + 1),
            b'<' => match bytes.get(i + 1) {
                Some(b'=') => (Tok::Le, i + 2),
                Some(b'>') => (Tok::Ne, i + 2),
                _ => (Tok::Lt, i + 1),
            },
            b'>' => match bytes.get(i + 1) {
                Some(b'=') => (Tok::Ge, i + 2),
                _ => (Tok::Gt, i + 1),
            },
            _ => {
                let c = text[i..].chars().next().unwrap_or('?');
                (Tok::Unknown(c), i + c.len_utf8())
            }
        };
        tokens.push(Token { tok, start, end });
        i = end;
    }
    tokens.push(Token { tok: Tok::Eof, start: text.len(), end: text.len() });
    tokens
}

impl Tok {
    /// The token's text as DynamoDB quotes it in a syntax error.
    pub fn text(&self) -> String {
        match self {
            Self::Word(s) | Self::Name(s) | Self::Value(s) | Self::Digits(s) => s.clone(),
            Self::LParen => "(".into(),
            Self::RParen => ")".into(),
            Self::LBracket => "[".into(),
            Self::RBracket => "]".into(),
            Self::Comma => ",".into(),
            Self::Dot => ".".into(),
            Self::Eq => "=".into(),
            Self::Ne => "<>".into(),
            Self::Lt => "<".into(),
            Self::Le => "<=".into(),
            Self::Gt => ">".into(),
            Self::Ge => ">=".into(),
            Self::Plus => "+".into(),
            Self::Minus => "-".into(),
            Self::Unknown(c) => c.to_string(),
            Self::Eof => "<EOF>".into(),
        }
    }

    /// True for the grammar's keywords, which can never be attribute names.
    pub fn is_keyword(&self, keyword: &str) -> bool {
        matches!(self, Self::Word(w) if w.eq_ignore_ascii_case(keyword))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_operators_and_placeholders() {
        let toks: Vec<Tok> = tokenize("a.b[3] <> :v AND #n>=1").into_iter().map(|t| t.tok).collect();
        assert_eq!(
            toks,
            vec![
                Tok::Word("a".into()),
                Tok::Dot,
                Tok::Word("b".into()),
                Tok::LBracket,
                Tok::Digits("3".into()),
                Tok::RBracket,
                Tok::Ne,
                Tok::Value(":v".into()),
                Tok::Word("AND".into()),
                Tok::Name("#n".into()),
                Tok::Ge,
                Tok::Digits("1".into()),
                Tok::Eof,
            ]
        );
    }
}
