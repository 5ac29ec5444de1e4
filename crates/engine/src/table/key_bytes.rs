//! Key values as bytes that sort as DynamoDB sorts the values: an index entry's position (its RANGE
//! values, then the table key) is one short byte string, and a sort-key condition becomes one
//! range of byte strings (docs/storage.md).
//!
//! Each value is self-delimiting, so a concatenation sorts value by value:
//! - `S` and `B`: the bytes, `0x00` written `0x00 0xFF`, ended by `0x00 0x01`. Without its end, a
//!   value's bytes are a prefix of exactly the values that begin with it (`begins_with`).
//! - `N`: `0x80` for zero; positive `0xC0`, the exponent (biased, 2 bytes), the digits, `0x00`;
//!   negative `0x40` and the same bytes complemented, ended by `0xFF`, so larger magnitudes sort
//!   lower.

use crate::value::{KeyValue, Number, ScalarType};

const ESCAPE: u8 = 0xFF;
const END: u8 = 0x01;

pub fn push(value: &KeyValue, out: &mut Vec<u8>) {
    match value {
        KeyValue::S(s) => push_bytes(s.as_bytes(), true, out),
        KeyValue::B(b) => push_bytes(b, true, out),
        KeyValue::N(n) => push_number(n, out),
    }
}

/// How many of a value's first bytes [`leading`] keeps: enough for many sort keys designs use
/// (`ORDER#0001`, a date, a number of up to nine digits) to differ in them.
pub const LEADING_BYTES: usize = 12;

/// The first [`LEADING_BYTES`] bytes of a value's encoding as one number, in its most significant
/// bytes (zeros after a shorter encoding, and in the last four bytes). A smaller value never has a
/// larger one, so an ordered set compares these first and reads the values themselves only when
/// they are equal.
pub fn leading(value: &KeyValue) -> u128 {
    // Written here rather than cut from `push`'s output: this runs for every lookup, and `push`
    // allocates.
    let mut first = [0u8; 16];
    let mut at = 0;
    let mut put = |b: u8| {
        if let Some(slot) = first.get_mut(at).filter(|_| at < LEADING_BYTES) {
            *slot = b;
        }
        at += 1;
    };
    let mut put_bytes = |bytes: &[u8]| {
        for &b in bytes.iter().take(LEADING_BYTES) {
            put(b);
            if b == 0 {
                put(ESCAPE);
            }
        }
        put(0);
        put(END);
    };
    match value {
        KeyValue::S(s) => put_bytes(s.as_bytes()),
        KeyValue::B(b) => put_bytes(b),
        KeyValue::N(n) => {
            let (negative, digits, exp) = n.parts();
            if digits.is_empty() {
                put(0x80);
            } else {
                let biased = (exp.clamp(-32_768, 32_767) + 32_768) as u16;
                let flip = |b: u8| if negative { !b } else { b };
                put(if negative { 0x40 } else { 0xC0 });
                for b in biased.to_be_bytes().into_iter().chain(digits.bytes().take(LEADING_BYTES)) {
                    put(flip(b));
                }
                put(if negative { 0xFF } else { 0x00 });
            }
        }
    }
    u128::from_be_bytes(first)
}

/// The bytes every encoding of a value beginning with `prefix` starts with (no end marker).
pub fn push_prefix(prefix: &KeyValue, out: &mut Vec<u8>) {
    match prefix {
        KeyValue::S(s) => push_bytes(s.as_bytes(), false, out),
        KeyValue::B(b) => push_bytes(b, false, out),
        KeyValue::N(n) => push_number(n, out),
    }
}

fn push_bytes(bytes: &[u8], terminated: bool, out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(ESCAPE);
        }
    }
    if terminated {
        out.extend_from_slice(&[0, END]);
    }
}

fn push_number(n: &Number, out: &mut Vec<u8>) {
    let (negative, digits, exp) = n.parts();
    if digits.is_empty() {
        out.push(0x80);
        return;
    }
    let biased = (exp.clamp(-32_768, 32_767) + 32_768) as u16;
    let mut body = Vec::with_capacity(digits.len() + 3);
    body.extend_from_slice(&biased.to_be_bytes());
    body.extend_from_slice(digits.as_bytes());
    if negative {
        out.push(0x40);
        out.extend(body.iter().map(|b| !b));
        out.push(0xFF);
    } else {
        out.push(0xC0);
        out.extend_from_slice(&body);
        out.push(0x00);
    }
}

/// Reads one value of type `kind` from the front of `bytes`: the value and the bytes it took.
pub fn read(bytes: &[u8], kind: ScalarType) -> Option<(KeyValue, usize)> {
    match kind {
        ScalarType::S => {
            let (raw, used) = read_bytes(bytes)?;
            Some((KeyValue::S(String::from_utf8(raw).ok()?), used))
        }
        ScalarType::B => {
            let (raw, used) = read_bytes(bytes)?;
            Some((KeyValue::B(raw), used))
        }
        ScalarType::N => read_number(bytes),
    }
}

fn read_bytes(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut raw = Vec::new();
    let mut i = 0;
    loop {
        let b = *bytes.get(i)?;
        if b != 0 {
            raw.push(b);
            i += 1;
            continue;
        }
        match *bytes.get(i + 1)? {
            ESCAPE => raw.push(0),
            END => return Some((raw, i + 2)),
            _ => return None,
        }
        i += 2;
    }
}

fn read_number(bytes: &[u8]) -> Option<(KeyValue, usize)> {
    let negative = match *bytes.first()? {
        0x80 => return Some((KeyValue::N(Number::zero()), 1)),
        0xC0 => false,
        0x40 => true,
        _ => return None,
    };
    let end_marker = if negative { 0xFF } else { 0x00 };
    // The marker is looked for after the exponent, whose bytes may be anything; digits never are.
    let length = 2 + bytes.get(3..)?.iter().position(|b| *b == end_marker)?;
    let body: Vec<u8> = bytes[1..=length].iter().map(|b| if negative { !b } else { *b }).collect();
    let (exp, digits) = body.split_at_checked(2)?;
    let exp = i32::from(u16::from_be_bytes([exp[0], exp[1]])) - 32_768;
    let digits = std::str::from_utf8(digits).ok()?;
    Some((KeyValue::N(Number::from_parts(negative, digits, exp)), length + 2))
}

/// The first byte string after every one that starts with `prefix`: the exclusive end of the
/// range of strings with that prefix (`None`: no end, every longer string is after it).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoded(v: &KeyValue) -> Vec<u8> {
        let mut out = Vec::new();
        push(v, &mut out);
        out
    }

    pub(crate) fn number() -> impl Strategy<Value = KeyValue> {
        (any::<bool>(), "[1-9][0-9]{0,12}", -20i32..20).prop_map(|(negative, digits, point)| {
            let sign = if negative { "-" } else { "" };
            KeyValue::N(Number::parse(&format!("{sign}{digits}e{point}")).expect("number"))
        })
    }

    /// Key values of one type, with the bytes and characters that need care (0x00, 0xFF, é, 😀).
    pub(crate) fn key_value(kind: ScalarType) -> BoxedStrategy<KeyValue> {
        match kind {
            ScalarType::S => "[a\\x00\\x01\"\\\\\\u{e9}\\u{1F600}b]{0,6}".prop_map(KeyValue::S).boxed(),
            ScalarType::B => proptest::collection::vec(prop_oneof![Just(0u8), Just(1), Just(0xFF), any::<u8>()], 0..6)
                .prop_map(KeyValue::B)
                .boxed(),
            ScalarType::N => prop_oneof![number(), Just(KeyValue::N(Number::zero()))].boxed(),
        }
    }

    pub(crate) fn kind() -> impl Strategy<Value = ScalarType> {
        prop_oneof![Just(ScalarType::S), Just(ScalarType::N), Just(ScalarType::B)]
    }

    proptest! {
        #[test]
        fn bytes_sort_as_the_values_and_read_back(
            (kind, a, b, c, d) in kind().prop_flat_map(|k| (Just(k), key_value(k), key_value(k), key_value(k), key_value(k)))
        ) {
            prop_assert_eq!(encoded(&a).cmp(&encoded(&b)), a.cmp(&b));
            // A pair sorts as the tuple: each value ends where the next begins.
            let mut ac = encoded(&a);
            push(&c, &mut ac);
            let mut bd = encoded(&b);
            push(&d, &mut bd);
            prop_assert_eq!(ac.cmp(&bd), (&a, &c).cmp(&(&b, &d)));
            let (read_a, used) = read(&ac, kind).expect("reads");
            prop_assert_eq!(&read_a, &a);
            prop_assert_eq!(read(&ac[used..], kind).expect("reads").0, c);
            // The leading bytes never contradict the order: they differ only as the values do.
            let (la, lb) = (leading(&a), leading(&b));
            let mut first = [0u8; 16];
            for (to, from) in first.iter_mut().zip(encoded(&a)).take(LEADING_BYTES) {
                *to = from;
            }
            prop_assert_eq!(la, u128::from_be_bytes(first), "the first twelve bytes of the encoding");
            prop_assert!(la == lb || la.cmp(&lb) == a.cmp(&b), "{:?} {:?}: {} {}", a, b, la, lb);
        }

        #[test]
        fn a_prefix_marks_exactly_the_values_that_begin_with_it(
            whole in "[a\\x00b]{0,6}", prefix in "[a\\x00b]{0,3}"
        ) {
            let mut start = Vec::new();
            push_prefix(&KeyValue::S(prefix.clone()), &mut start);
            let value = encoded(&KeyValue::S(whole.clone()));
            let inside = value >= start && prefix_end(&start).is_none_or(|end| value < end);
            prop_assert_eq!(inside, whole.starts_with(&prefix));
        }
    }

    #[test]
    fn the_end_of_a_prefix_skips_trailing_ff() {
        assert_eq!(prefix_end(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(prefix_end(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
    }
}
