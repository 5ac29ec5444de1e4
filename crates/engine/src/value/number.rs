//! DynamoDB's `N`: an exact decimal of up to 38 significant digits, never a float.

use crate::error::{DynamoError, Result};
use std::cmp::Ordering;
use std::fmt;

/// Largest and smallest decimal exponents, in the form `0.DIGITS × 10^exp`:
/// 9.99…E+125 is `0.999… × 10^126`, 1E-130 is `0.1 × 10^-129`.
const MAX_EXP: i64 = 126;
const MIN_EXP: i64 = -129;
const MAX_DIGITS: usize = 38;
/// The longest encoding (`Number::dynamodb_bytes`): an exponent byte and 20 digit pairs, or
/// fewer pairs and the closing 102.
pub const ENCODED_MAX: usize = 22;

/// A normalised decimal: `(-1)^negative × 0.DIGITS × 10^exp`, with no leading or trailing zero
/// digit, so equal numbers have equal fields (`1`, `1.0` and `10e-1` are one value).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    digits: Box<str>,
    exp: i32,
}

/// Real DynamoDB's wording, as dynoxide captured it in 2026; DynamoDB Local says
/// "A value provided cannot be converted into a number".
fn not_a_number(text: &str) -> DynamoError {
    // An empty number keeps the colon and the space in the current value layer (the autumn-2026
    // suite, four regions); the older layer drops them (`wire::older_number_words`), as dynalite's
    // suite saw it.
    DynamoError::validation(format!("The parameter cannot be converted to a numeric value: {text}"))
}

impl Number {
    /// Parses a number as DynamoDB does (Java `BigDecimal` syntax), enforcing precision and range.
    pub fn parse(text: &str) -> Result<Self> {
        let number = Self::parse_unchecked(text)?;
        number.check_limits()?;
        Ok(number)
    }

    /// Sign, significant digits (no leading or trailing zero; empty for zero) and the exponent
    /// that makes the value `0.DIGITS × 10^exp`.
    pub fn parts(&self) -> (bool, &str, i32) {
        (self.negative, &self.digits, self.exp)
    }

    /// The number [`Number::parts`] describes (for values that were valid numbers before).
    pub fn from_parts(negative: bool, digits: &str, exp: i32) -> Self {
        if digits.is_empty() {
            return Self::zero();
        }
        Self { negative, digits: digits.into(), exp }
    }

    /// The zero.
    pub fn zero() -> Self {
        Self { negative: false, digits: "".into(), exp: 0 }
    }

    fn parse_unchecked(text: &str) -> Result<Self> {
        let bad = || not_a_number(text);
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.first() {
            Some(b'-') => (true, &bytes[1..]),
            Some(b'+') => (false, &bytes[1..]),
            _ => (false, bytes),
        };
        let (mantissa, exponent) = match rest.iter().position(|b| *b == b'e' || *b == b'E') {
            Some(at) => (&rest[..at], Some(&rest[at + 1..])),
            None => (rest, None),
        };
        let mut all_digits = Vec::with_capacity(mantissa.len());
        let mut point_at = None;
        for (i, b) in mantissa.iter().enumerate() {
            match b {
                b'0'..=b'9' => all_digits.push(*b),
                b'.' if point_at.is_none() => point_at = Some(i),
                _ => return Err(bad()),
            }
        }
        if all_digits.is_empty() {
            return Err(bad());
        }
        let mut exp10: i64 = match exponent {
            None => 0,
            Some(e) => parse_exponent(e).ok_or_else(bad)?,
        };
        let integer_len = point_at.unwrap_or(all_digits.len()) as i64;
        let leading = all_digits.iter().take_while(|d| **d == b'0').count();
        if leading == all_digits.len() {
            // Zero is range-checked as if its last written digit were a 1: `0e126` overflows
            // like `1e126` (dynoxide's capture of the real service).
            let fraction_len = point_at.map_or(0, |p| all_digits.len() - p) as i64;
            let as_if_one = exp10.saturating_sub(fraction_len).saturating_add(1);
            let probe = Self { negative: false, digits: "1".into(), exp: as_if_one.clamp(-(1 << 30), 1 << 30) as i32 };
            probe.check_limits()?;
            return Ok(Self::zero());
        }
        let trailing = all_digits.iter().rev().take_while(|d| **d == b'0').count();
        let significant = &all_digits[leading..all_digits.len() - trailing];
        exp10 = exp10.saturating_add(integer_len - leading as i64);
        let exp = exp10.clamp(i64::from(i32::MIN / 2), i64::from(i32::MAX / 2)) as i32;
        let digits = String::from_utf8_lossy(significant).into_owned().into_boxed_str();
        Ok(Self { negative, digits, exp })
    }

    fn check_limits(&self) -> Result<()> {
        if self.digits.is_empty() {
            return Ok(());
        }
        if self.digits.len() > MAX_DIGITS {
            // Real DynamoDB's wording; DynamoDB Local says "DynamoDB only supports precision up to 38 digits".
            return Err(DynamoError::validation("Attempting to store more than 38 significant digits in a Number"));
        }
        if i64::from(self.exp) > MAX_EXP {
            return Err(DynamoError::validation(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
            ));
        }
        if i64::from(self.exp) < MIN_EXP {
            return Err(DynamoError::validation(
                "Number underflow. Attempting to store a number with magnitude smaller than supported range",
            ));
        }
        Ok(())
    }

    /// Bytes this number takes in an item: 1 + base-100 digit groups, +1 when negative (fact sheet §1).
    pub fn stored_size(&self) -> usize {
        if self.digits.is_empty() {
            return 1;
        }
        // Digit i has decimal power exp-1-i; a group holds the powers 2g+1 and 2g.
        let first_power = i64::from(self.exp) - 1;
        let last_power = i64::from(self.exp) - self.digits.len() as i64;
        let groups = (first_power.div_euclid(2) - last_power.div_euclid(2) + 1) as usize;
        1 + groups + usize::from(self.negative && groups < 20)
    }

    /// The number as DynamoDB encodes it (the layout `stored_size` counts): an exponent byte,
    /// then base-100 digit pairs, each + 1 (positive) or 101 − pair (negative), and a closing 102
    /// on a negative number of fewer than 20 pairs; zero is the one byte 0x80. The exponent byte
    /// is 192 + the base-100 exponent (its complement when negative), as Oracle's NUMBER is laid
    /// out. Used where DynamoDB hashes a number key (`KeyValue::scan_hash`).
    pub fn dynamodb_bytes(&self) -> Vec<u8> {
        let (bytes, len) = self.dynamodb_bytes_on_stack();
        bytes[..len].to_vec()
    }

    /// The same encoding without a heap allocation (it is hashed on every key lookup): the bytes
    /// and how many are used. A valid number takes at most 22; digits beyond what DynamoDB
    /// allows would be left out, never written past the end.
    pub fn dynamodb_bytes_on_stack(&self) -> ([u8; ENCODED_MAX], usize) {
        let mut out = [0u8; ENCODED_MAX];
        if self.digits.is_empty() {
            out[0] = 0x80;
            return (out, 1);
        }
        // Pairs are aligned on even decimal powers: an odd exponent takes a leading zero digit.
        let leading_zero = usize::from(self.exp.rem_euclid(2) == 1);
        let digits = self.digits.as_bytes();
        let digit =
            |i: usize| i.checked_sub(leading_zero).and_then(|i| digits.get(i)).map_or(0, |d| d.saturating_sub(b'0'));
        let pairs = (digits.len() + leading_zero).div_ceil(2);
        let exponent = (i64::from(self.exp) + leading_zero as i64).div_euclid(2) + 192;
        out[0] = if self.negative { !(exponent as u8) } else { exponent as u8 };
        let mut len = 1;
        for pair in 0..pairs {
            let value = digit(2 * pair) * 10 + digit(2 * pair + 1);
            if let Some(slot) = out.get_mut(len) {
                *slot = if self.negative { 101 - value } else { value + 1 };
                len += 1;
            }
        }
        if self.negative && pairs < 20 {
            if let Some(slot) = out.get_mut(len) {
                *slot = 102;
                len += 1;
            }
        }
        (out, len)
    }

    /// `self + other`, exact, then held to DynamoDB's limits.
    pub fn add(&self, other: &Self) -> Result<Self> {
        // Counters are whole numbers: added exactly in an i128, without the decimal library.
        if let Some(sum) = self.small_integer().zip(other.small_integer()).map(|(a, b)| a + b) {
            return Self::parse(&sum.to_string());
        }
        let sum = self.to_big() + other.to_big();
        Self::from_big(&sum)
    }

    /// The number as an i128 when it is a whole number below 10^37 in size (so that any sum or
    /// difference of two such fits); `None` otherwise.
    fn small_integer(&self) -> Option<i128> {
        let digits = self.digits.as_bytes();
        let exp = usize::try_from(self.exp).ok().filter(|e| *e <= 37);
        let Some(exp) = exp.filter(|e| *e >= digits.len()) else {
            return digits.is_empty().then_some(0);
        };
        let mut value: i128 = 0;
        for digit in digits.iter().chain(std::iter::repeat_n(&b'0', exp - digits.len())) {
            value = value * 10 + i128::from(digit - b'0');
        }
        Some(if self.negative { -value } else { value })
    }

    /// `self - other`, exact, then held to DynamoDB's limits.
    pub fn sub(&self, other: &Self) -> Result<Self> {
        if let Some(difference) = self.small_integer().zip(other.small_integer()).map(|(a, b)| a - b) {
            return Self::parse(&difference.to_string());
        }
        let difference = self.to_big() - other.to_big();
        Self::from_big(&difference)
    }

    fn to_big(&self) -> bigdecimal::BigDecimal {
        use std::str::FromStr;
        if self.digits.is_empty() {
            return bigdecimal::BigDecimal::from(0);
        }
        let sign = if self.negative { "-" } else { "" };
        let text = format!("{sign}0.{}e{}", self.digits, self.exp);
        bigdecimal::BigDecimal::from_str(&text).unwrap_or_default()
    }

    fn from_big(value: &bigdecimal::BigDecimal) -> Result<Self> {
        let (mantissa, scale) = value.as_bigint_and_exponent();
        let text = format!("{mantissa}e{}", -scale);
        Self::parse(&text)
    }
}

fn parse_exponent(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // An exponent that does not fit 64 bits is not a number at all, not an overflow.
    let mut value: i64 = 0;
    for d in digits {
        value = value.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
    }
    Some(if negative { -value } else { value })
}

impl Number {
    /// Appends the number in plain notation (as `Display` writes it); item forms write a number
    /// on every write, and a `String` written to directly skips the formatting machinery.
    pub fn push_to(&self, out: &mut String) {
        let _ = self.write_plain(out);
    }

    fn write_plain(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if self.digits.is_empty() {
            return out.write_char('0');
        }
        if self.negative {
            out.write_char('-')?;
        }
        let len = self.digits.len();
        let exp = i64::from(self.exp);
        if exp <= 0 {
            out.write_str("0.")?;
            for _ in 0..exp.unsigned_abs() {
                out.write_char('0')?;
            }
            out.write_str(&self.digits)
        } else if exp as usize >= len {
            out.write_str(&self.digits)?;
            for _ in len..exp as usize {
                out.write_char('0')?;
            }
            Ok(())
        } else {
            let (int, frac) = self.digits.split_at(exp as usize);
            out.write_str(int)?;
            out.write_char('.')?;
            out.write_str(frac)
        }
    }
}

impl fmt::Display for Number {
    /// Plain notation, as DynamoDB returns numbers: `1e3` → `1000`, `01.50` → `1.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_plain(f)
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |n: &Self| -> i8 {
            if n.digits.is_empty() {
                0
            } else if n.negative {
                -1
            } else {
                1
            }
        };
        let (a, b) = (sign(self), sign(other));
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitude = self.exp.cmp(&other.exp).then_with(|| self.digits.as_bytes().cmp(other.digits.as_bytes()));
        if a < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        Number::parse(text).unwrap()
    }

    #[test]
    fn normalises_on_output() {
        for (input, output) in [
            ("01.50", "1.5"),
            ("1e3", "1000"),
            ("-0.000", "0"),
            ("+5", "5"),
            ("1.0", "1"),
            ("0.001", "0.001"),
            ("-12.340", "-12.34"),
            ("1E-130", &format!("0.{}1", "0".repeat(129))),
            (".5", "0.5"),
            ("5.", "5"),
        ] {
            assert_eq!(n(input).to_string(), output, "{input}");
        }
    }

    #[test]
    fn encodes_as_dynamodb_does_in_as_many_bytes_as_it_counts() {
        // Oracle NUMBER's layout, which DynamoDB's item sizes follow byte for byte.
        for (input, bytes) in [
            ("0", vec![0x80]),
            ("1", vec![0xC1, 2]),
            ("10", vec![0xC1, 11]),
            ("100", vec![0xC2, 2]),
            ("123.45", vec![0xC2, 2, 24, 46]),
            ("0.5", vec![0xC0, 51]),
            ("-1", vec![0x3E, 100, 102]),
            ("-123.45", vec![0x3D, 100, 78, 56, 102]),
        ] {
            assert_eq!(n(input).dynamodb_bytes(), bytes, "{input}");
        }
        let longest = format!("-9.{}", "9".repeat(37));
        for text in ["7", "-7", "99", "1E125", "-1E-130", "0.01", "123456789012345678901234567890123456.78", &longest] {
            assert_eq!(n(text).dynamodb_bytes().len(), n(text).stored_size(), "{text}");
        }
        assert_eq!(n(&longest).dynamodb_bytes().len(), 21, "20 pairs and no closing 102");
    }

    #[test]
    fn rejects_what_dynamodb_rejects() {
        let message = |text: &str| Number::parse(text).unwrap_err().message;
        for text in ["abc", "1e", " 1", "1.2.3", "NaN", "1e99999999999999999999", "+e2", "."] {
            assert_eq!(message(text), format!("The parameter cannot be converted to a numeric value: {text}"));
        }
        assert_eq!(
            message(""),
            "The parameter cannot be converted to a numeric value: ",
            "the current layer keeps the colon"
        );
        assert!(message("0e126").starts_with("Number overflow."));
        assert!(message("0.0e-130").starts_with("Number underflow."));
        assert_eq!(Number::parse("0e125").unwrap().to_string(), "0");
        assert_eq!(message(&"1".repeat(39)), "Attempting to store more than 38 significant digits in a Number");
        assert!(message("1E+126").starts_with("Number overflow."));
        assert!(message("1E-131").starts_with("Number underflow."));
        assert!(Number::parse("9.9999999999999999999999999999999999999E+125").is_ok());
        assert!(Number::parse("1E-130").is_ok());
        assert!(Number::parse(&format!("{}0000", "1".repeat(38))).is_ok());
    }

    #[test]
    fn sizes_match_the_fact_sheet() {
        for (text, size) in [
            ("0", 1),
            ("1", 2),
            ("99", 2),
            ("100", 2),
            ("101", 3),
            ("1234", 3),
            ("12345", 4),
            ("1234567", 5),
            ("0.5", 2),
            ("1.5", 3),
            ("100.1", 4),
            ("10.1", 3),
            ("0.001", 2),
            ("1e10", 2),
            ("-1", 3),
            ("-123", 4),
            ("-0.5", 3),
            ("12345678901234567890123456789012345678", 20),
            ("-1234567890123456789012345678901234567", 21),
            ("-1.2345678901234567890123456789012345678", 21),
        ] {
            assert_eq!(n(text).stored_size(), size, "{text}");
        }
    }

    #[test]
    fn orders_numerically() {
        let mut values: Vec<Number> =
            ["10", "-1", "2", "0", "-10", "0.5", "1e2", "-0.5"].iter().map(|t| n(t)).collect();
        values.sort();
        let shown: Vec<String> = values.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["-10", "-1", "-0.5", "0", "0.5", "2", "10", "100"]);
        assert_eq!(n("1.0"), n("1"));
    }

    #[test]
    fn adds_exactly() {
        assert_eq!(n("0.1").add(&n("0.2")).unwrap().to_string(), "0.3");
        assert_eq!(n("5").sub(&n("7.5")).unwrap().to_string(), "-2.5");
        assert!(n("9.9999999999999999999999999999999999999E+125").add(&n("1E+125")).is_err());
        assert_eq!(n("1e30").sub(&n("1e30")).unwrap().to_string(), "0");
        assert_eq!(n("99999999999999999999999999999999999990").add(&n("10")).unwrap(), n("1e38"));
        assert_eq!(n("-1e36").sub(&n("1e36")).unwrap(), n("-2e36"));
    }

    proptest::proptest! {
        /// Whole numbers take the i128 path, others the decimal library's: both agree with it.
        #[test]
        fn the_integer_path_adds_as_the_decimal_library_does(
            a in -10i128.pow(37) + 1..10i128.pow(37), b in -10i128.pow(37) + 1..10i128.pow(37),
            shift_a in 0u32..40, shift_b in 0u32..40,
        ) {
            let (a, b) = (n(&format!("{a}e{shift_a}")), n(&format!("{b}e{shift_b}")));
            for (ours, wanted) in [(a.add(&b), Number::from_big(&(a.to_big() + b.to_big()))), (a.sub(&b), Number::from_big(&(a.to_big() - b.to_big())))] {
                proptest::prop_assert_eq!(ours.map_err(|e| e.message), wanted.map_err(|e| e.message));
            }
        }
    }
}
