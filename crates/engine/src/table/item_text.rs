//! An item's stored form: a short text holding its size, then each attribute's value as the JSON
//! text that differs from item to item — without what is the same for every attribute (`"name":`,
//! `{"S":"`, `"}`), which a read writes back around it.
//!
//! ```text
//! size  shape  length*  payload*                                            an item of a known shape
//! size  0  partition-key-at  sort-key-at  (name kind length payload)*       any other item
//! ```
//! `shape` is an interned shape's id plus one (`shapes.rs`: the attributes' names and kinds, in
//! order, and which are the keys); most items have one, and store only their values: every
//! length, then every payload. Its keys are found from the shape (which attributes) and the
//! lengths (where), so it spends no bytes on key places. An item without one (a name too long or
//! too late to intern, more attributes than a shape holds) names each attribute: `id + 1` of an
//! interned name, or `0`, its length and its text; then its kind. Its `…-key-at` is where the
//! table's key attribute starts among the attributes, plus one (zero: the form has no such
//! attribute), so the storage compares keys without reading the other attributes.
//! Numbers (size, ids, lengths) are written 6 bits a byte, low bits first, 0x40 marking that
//! another byte follows: every byte the form adds is ASCII, so the whole form is a `str` and a
//! read copies slices of it into the response as they are (no UTF-8 check, no escaping).
//! Kinds: `S`, `N` and `B` keep the text JSON writes between `{"S":"` and `"}` (base64 for `B`),
//! `E` a string whose JSON text has an escape (so that comparing or decoding an `S` never looks
//! for one); `J` keeps the whole value as JSON (`{"SS":[…]}`, `{"M":{…}}`, `{"BOOL":true}`, …).
//! Attributes are in name order, as `Item` keeps them, so a read writes exactly what serde_json
//! writes for the item.

use super::names;
use super::shapes::{self, Shape};
use crate::value::{AttributeValue, Item, Number};
use base64::Engine as _;

const PREFIX_S: &str = r#"{"S":""#;
const PREFIX_N: &str = r#"{"N":""#;
const PREFIX_B: &str = r#"{"B":""#;
const SUFFIX: &str = r#""}"#;

/// The stored form of `item`, whose size by DynamoDB's rules is `size`; `key` names the table's
/// key attributes (partition key, then sort key if any), whose places the form records.
pub fn encode(item: &Item, size: usize, key: &[impl AsRef<str>]) -> String {
    let mut ids = Vec::with_capacity(item.len());
    names::intern(item.keys().map(String::as_str), &mut ids);
    // Every payload, one after another in one buffer (one allocation per write, not one per
    // attribute), with each one's kind and end.
    let mut payloads = String::with_capacity(size);
    let values: Vec<(u8, usize)> = item
        .values()
        .map(|value| {
            let kind = push_payload(value, &mut payloads);
            (kind, payloads.len())
        })
        .collect();
    let key_index = [0, 1].map(|which| {
        let name = key.get(which)?.as_ref();
        item.keys().position(|n| n == name)
    });
    let named: Option<Vec<(u32, u8)>> = ids.iter().zip(&values).map(|(id, (kind, _))| Some(((*id)?, *kind))).collect();
    let shape = named.and_then(|named| shapes::intern(&named, key_index));
    let mut out = String::with_capacity(payloads.len() + 3 * item.len() + 8);
    push_number(size, &mut out);
    let mut start = 0;
    let spans = values.iter().map(|&(kind, end)| {
        let span = (kind, start..end);
        start = end;
        span
    });
    if let Some(id) = shape {
        push_number(id as usize + 1, &mut out);
        for (_, span) in spans {
            push_number(span.len(), &mut out);
        }
        out.push_str(&payloads);
        return out;
    }
    let mut body = String::with_capacity(payloads.len() + 3 * item.len() + 4);
    let mut key_at = [0usize; 2];
    for (index, ((name, id), (kind, span))) in item.keys().zip(ids).zip(spans).enumerate() {
        if let Some(which) = key_index.iter().position(|k| *k == Some(index)) {
            if let Some(at) = key_at.get_mut(which) {
                *at = body.len() + 1;
            }
        }
        if let Some(id) = id {
            push_number(id as usize + 1, &mut body);
        } else {
            push_number(0, &mut body);
            push_number(name.len(), &mut body);
            body.push_str(name);
        }
        body.push(char::from(kind));
        push_number(span.len(), &mut body);
        body.push_str(&payloads[span]);
    }
    push_number(0, &mut out);
    push_number(key_at[0], &mut out);
    push_number(key_at[1], &mut out);
    out.push_str(&body);
    out
}

/// Appends a value's payload to `out` and returns its kind: the text JSON writes between
/// `{"S":"` and `"}` for a string, a number or a binary (kind `E` for a string whose text has an
/// escape), else the whole JSON (`J`).
fn push_payload(value: &AttributeValue, out: &mut String) -> u8 {
    // The common values directly: exactly the text JSON writes for them, without writing the JSON.
    match value {
        AttributeValue::S(text) if !needs_escape(text) => {
            out.push_str(text);
            b'S'
        }
        AttributeValue::N(number) => {
            number.push_to(out);
            b'N'
        }
        AttributeValue::B(bytes) => {
            base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
            b'B'
        }
        _ => {
            let (kind, payload) = kind_and_payload_from_json(value);
            out.push_str(&payload);
            kind
        }
    }
}

/// Whether JSON writes `text` with an escape: a quote, a backslash or a control character.
/// Eight bytes at a time, as every string attribute of every write is looked at.
fn needs_escape(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero exactly where the high bit of this is set (no false positives once
    // the borrow-producing bytes are excluded by `!x`).
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = text.as_bytes().chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        // Bytes under 0x20 (ASCII only: no byte of 0x80 or more is under it), quotes, backslashes.
        let control = x.wrapping_sub(0x20 * ONES) & !x & HIGHS;
        if control | has_zero(x ^ (u64::from(b'"') * ONES)) | has_zero(x ^ (u64::from(b'\\') * ONES)) != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20)
}

/// A value's kind and payload, read off the JSON serde writes for it.
fn kind_and_payload_from_json(value: &AttributeValue) -> (u8, String) {
    let mut json = serde_json::to_string(value).unwrap_or_default();
    let scalar = [(b'S', PREFIX_S), (b'N', PREFIX_N), (b'B', PREFIX_B)].into_iter().find_map(|(kind, prefix)| {
        let payload = json.strip_prefix(prefix)?.strip_suffix(SUFFIX)?;
        escaped_only(payload).then_some((kind, prefix.len()))
    });
    let Some((kind, start)) = scalar else { return (b'J', json) };
    // The payload in place of the JSON around it: no second allocation on every write.
    json.truncate(json.len() - SUFFIX.len());
    json.drain(..start);
    let kind = if kind == b'S' && json.contains('\\') { b'E' } else { kind };
    (kind, json)
}

/// The form's header past the item's size (which `size` reads alone): how its attributes are
/// written, where an unshaped form's key attributes start, and where the attributes start.
#[inline]
fn header(form: &str) -> Header {
    let bytes = form.as_bytes();
    let mut at = 0;
    let mut next = || read_number(bytes, &mut at).unwrap_or(0);
    let (_size, shape) = (next(), next());
    let layout = match shape.checked_sub(1) {
        None => {
            let key_at = [next(), next()];
            Layout::Named { key_at }
        }
        Some(id) => u32::try_from(id).ok().and_then(shapes::get).map_or(Layout::Unknown, Layout::Shaped),
    };
    Header { layout, start: at }
}

struct Header {
    layout: Layout,
    start: usize,
}

/// How a form writes its attributes.
#[derive(Clone, Copy)]
enum Layout {
    /// Each with its name and kind; where the key attributes start (plus one; zero: none).
    Named { key_at: [usize; 2] },
    /// Values only, names and kinds in the shape.
    Shaped(&'static Shape),
    /// A shape this process never gave out: only a damaged form says so.
    Unknown,
}

/// Where a shaped form's payloads start: after its `count` lengths, which start at `at`.
#[inline]
fn payloads_start(bytes: &[u8], mut at: usize, count: usize) -> Option<usize> {
    for _ in 0..count {
        read_number(bytes, &mut at)?;
    }
    Some(at)
}

/// A key attribute's value as stored (`which`: 0 the partition key, 1 the sort key): its kind and
/// payload, without decoding it.
#[inline]
pub fn key_value(form: &str, which: usize) -> Option<Stored<'_>> {
    let header = header(form);
    let bytes = form.as_bytes();
    match header.layout {
        Layout::Shaped(shape) => {
            let index = usize::from((*shape.keys.get(which)?)?);
            let kind = shape.attributes.get(index)?.kind;
            // One walk over the lengths: those before the key say how far into the payloads it
            // starts, and the end of the lengths is where the payloads start.
            let (mut at, mut before, mut length) = (header.start, 0, 0);
            for i in 0..shape.attributes.len() {
                let next = read_number(bytes, &mut at)?;
                match i.cmp(&index) {
                    std::cmp::Ordering::Less => before += next,
                    std::cmp::Ordering::Equal => length = next,
                    std::cmp::Ordering::Greater => {}
                }
            }
            let payload = at + before;
            Some(Stored { kind, payload: form.get(payload..payload + length)? })
        }
        Layout::Unknown => None,
        Layout::Named { key_at } => {
            let mut at = header.start + key_at.get(which)?.checked_sub(1)?;
            // The name is skipped, not looked up: the caller knows which attribute it asked for.
            if read_number(bytes, &mut at)? == 0 {
                at += read_number(bytes, &mut at)?;
            }
            let kind = *bytes.get(at)?;
            at += 1;
            let length = read_number(bytes, &mut at)?;
            Some(Stored { kind, payload: form.get(at..at + length)? })
        }
    }
}

/// A key value as a form stores it: its kind and text (`Stored::text_of`), borrowed where it can be.
pub type KeyText<'k> = (u8, std::borrow::Cow<'k, str>);

/// The same text, owned (to keep it beyond the value it was made from).
pub fn owned_text((kind, text): KeyText<'_>) -> KeyText<'static> {
    (kind, std::borrow::Cow::Owned(text.into_owned()))
}

/// A scalar as stored: its kind (`S`, `N`, `B`) and the text JSON writes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored<'f> {
    pub kind: u8,
    pub payload: &'f str,
}

impl Stored<'_> {
    /// The stored text of a key value (what `encode` keeps for it): a string JSON writes as it
    /// is (no quote, backslash or control character) is borrowed, not copied.
    pub fn text_of(value: &crate::value::KeyValue) -> KeyText<'_> {
        use crate::value::KeyValue;
        use std::borrow::Cow;
        match value {
            KeyValue::S(s) if !needs_escape(s) => (b'S', Cow::Borrowed(s)),
            KeyValue::S(s) => {
                let json = serde_json::to_string(s).unwrap_or_default();
                let text = json.get(1..json.len().saturating_sub(1)).unwrap_or_default().to_string();
                (if text.contains('\\') { b'E' } else { b'S' }, Cow::Owned(text))
            }
            KeyValue::N(n) => (b'N', Cow::Owned(n.to_string())),
            KeyValue::B(b) => (b'B', Cow::Owned(base64::engine::general_purpose::STANDARD.encode(b))),
        }
    }

    /// A key value's text, as stored.
    pub fn of_text<'t>((kind, text): &'t KeyText<'_>) -> Stored<'t> {
        Stored { kind: *kind, payload: text }
    }

    /// The key value, decoded.
    pub fn key_value(&self) -> Option<crate::value::KeyValue> {
        use crate::value::KeyValue;
        match decode_value(self.kind, self.payload)? {
            AttributeValue::S(s) => Some(KeyValue::S(s)),
            AttributeValue::N(n) => Some(KeyValue::N(n)),
            AttributeValue::B(b) => Some(KeyValue::B(b)),
            _ => None,
        }
    }

    /// The order of two optional key values: absent first (a table without a sort key, a probe
    /// before every partition of its hash), then as `compare` orders them.
    pub fn compare_options(a: Option<Stored<'_>>, b: Option<Stored<'_>>) -> std::cmp::Ordering {
        match (a, b) {
            (Some(a), Some(b)) => a.compare(&b),
            (a, b) => a.is_some().cmp(&b.is_some()),
        }
    }

    /// DynamoDB's order of two key values of one type: strings by code point (UTF-8 bytes),
    /// binaries by unsigned byte, numbers by value.
    pub fn compare(&self, other: &Stored<'_>) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self.kind, other.kind) {
            (b'S', b'S') => self.payload.as_bytes().cmp(other.payload.as_bytes()),
            (b'N', b'N') => compare_numbers(self.payload, other.payload),
            (b'S' | b'E', b'S' | b'E') => unescape(self.payload).cmp(&unescape(other.payload)),
            (a, b) if a != b => a.cmp(&b),
            _ if self.payload == other.payload => Ordering::Equal,
            _ => {
                let decode = |text: &str| base64::engine::general_purpose::STANDARD.decode(text).unwrap_or_default();
                decode(self.payload).cmp(&decode(other.payload))
            }
        }
    }
}

/// A string's JSON text (between its quotes), unescaped.
fn unescape(payload: &str) -> Option<String> {
    serde_json::from_str::<String>(&format!("\"{payload}\"")).ok()
}

/// Two numbers as `Number` writes them (plain notation, no leading or trailing zero, `-` for
/// negatives, `0` for zero), compared by value without parsing them.
pub fn compare_numbers(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let plain = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if plain(a) && plain(b) {
        // Non-negative integers (the usual sort key; none but zero starts with 0): more digits is
        // larger, then digit by digit.
        return a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()));
    }
    let sign = |t: &str| -> i8 {
        if t == "0" {
            0
        } else if t.starts_with('-') {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(a), sign(b));
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let magnitude = |t: &str| -> (bool, usize) {
        let digits = t.trim_start_matches('-');
        let whole = digits.find('.').unwrap_or(digits.len());
        (!digits.starts_with("0."), whole)
    };
    let (da, db) = (a.trim_start_matches('-'), b.trim_start_matches('-'));
    let ((a_whole, a_len), (b_whole, b_len)) = (magnitude(a), magnitude(b));
    // At least 1 beats under 1; among numbers of at least 1, more whole digits is larger; then
    // (or among numbers under 1, all written `0.…`) the text compares as the value.
    let order = a_whole
        .cmp(&b_whole)
        .then_with(|| if a_whole { a_len.cmp(&b_len) } else { Ordering::Equal })
        .then_with(|| da.as_bytes().cmp(db.as_bytes()));
    if sa < 0 {
        order.reverse()
    } else {
        order
    }
}

/// Whether every `"` in a JSON string's inner text is escaped (so the text is one string value,
/// not `a","b` pieces of something else — which serde_json never writes, but the form must not
/// depend on it).
fn escaped_only(payload: &str) -> bool {
    let bytes = payload.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return false,
            _ => i += 1,
        }
    }
    true
}

/// The item's size by DynamoDB's rules, as written first in its form (read alone: a page asks it
/// of every item, and the rest of the header is not needed for it).
pub fn size(form: &str) -> usize {
    read_number(form.as_bytes(), &mut 0).unwrap_or(0)
}

/// What comes before an attribute's name in the item's JSON: the object's opening (the first
/// attribute), the end of an `S`, `N` or `B` value and a comma, or a comma after a JSON value.
pub const BEFORE: [&str; 3] = ["{", r#""},"#, ","];
/// What opens a value after its name, by kind: `S` (and `E`), `N`, `B`, a whole JSON value.
pub const OPENING: [&str; 4] = [PREFIX_S, PREFIX_N, PREFIX_B, ""];

/// Which `OPENING` a kind of value has.
pub fn opening(kind: u8) -> usize {
    match kind {
        b'S' | b'E' => 0,
        b'N' => 1,
        b'B' => 2,
        _ => 3,
    }
}

/// Which `BEFORE` comes before an attribute, by the kind of the one before it (`None`: the first).
pub fn before(previous: Option<u8>) -> usize {
    match previous.map(opening) {
        None => 0,
        Some(3) => 2,
        Some(_) => 1,
    }
}

/// What ends the item's JSON, by the kind of its last attribute (`None`: it has none).
pub fn closing(last: Option<u8>) -> &'static str {
    match last.map(opening) {
        None => "{}",
        Some(3) => "}",
        Some(_) => r#""}}"#,
    }
}

/// Writes the item's DynamoDB JSON, exactly as serde_json writes the item: for each attribute the
/// text before its value (one precomputed fragment for an interned name), then the value. (The
/// attribute walk is written out here rather than taken from `attributes`: this is every read's
/// inner loop.)
pub fn render(form: &str, out: &mut String) {
    let header = header(form);
    match header.layout {
        Layout::Shaped(shape) => render_shaped(form, header.start, shape, out),
        Layout::Unknown => out.push_str("{}"),
        Layout::Named { .. } => render_unshaped(form, header.start, out),
    }
}

/// An item of a known shape: its values' lengths, then their texts; the JSON around them from the
/// shape.
fn render_shaped(form: &str, mut lengths: usize, shape: &Shape, out: &mut String) {
    let bytes = form.as_bytes();
    out.reserve(form.len() * 2 + 16);
    let mut written = 0;
    if let Some(mut at) = payloads_start(bytes, lengths, shape.attributes.len()) {
        for attribute in &shape.attributes {
            let Some(length) = read_number(bytes, &mut lengths) else { break };
            let Some(payload) = form.get(at..at + length) else { break };
            at += length;
            out.push_str(attribute.before);
            out.push_str(payload);
            written += 1;
        }
    }
    out.push_str(shape.closing(written));
}

/// An item that keeps its names and kinds.
fn render_unshaped(form: &str, mut at: usize, out: &mut String) {
    let bytes = form.as_bytes();
    // Room for the form and the JSON around each attribute, reserved once.
    out.reserve(form.len() * 2 + 16);
    let mut previous = None;
    while at < bytes.len() {
        let Some(tag) = read_number(bytes, &mut at) else { break };
        let interned = if tag == 0 {
            let Some(length) = read_number(bytes, &mut at) else { break };
            let Some(text) = form.get(at..at + length) else { break };
            at += length;
            Err(text)
        } else {
            let Some(name) = u32::try_from(tag - 1).ok().and_then(names::get) else { break };
            Ok(name)
        };
        let Some(&kind) = bytes.get(at) else { break };
        at += 1;
        let Some(length) = read_number(bytes, &mut at) else { break };
        let Some(payload) = form.get(at..at + length) else { break };
        at += length;
        match interned {
            Ok(name) => out.push_str(name.fragment(before(previous), opening(kind))),
            Err(text) => {
                out.push_str(BEFORE.get(before(previous)).copied().unwrap_or_default());
                out.push_str(&serde_json::to_string(text).unwrap_or_default());
                out.push(':');
                out.push_str(OPENING.get(opening(kind)).copied().unwrap_or_default());
            }
        }
        out.push_str(payload);
        previous = Some(kind);
    }
    out.push_str(closing(previous));
}

/// The whole item.
pub fn decode(form: &str) -> Item {
    attributes(form).filter_map(|a| Some((a.name.text().to_string(), a.value()?))).collect()
}

/// The attributes named in `wanted`, decoding only theirs.
pub fn decode_only(form: &str, wanted: &[&str]) -> Item {
    attributes(form)
        .filter(|a| wanted.contains(&a.name.text()))
        .filter_map(|a| Some((a.name.text().to_string(), a.value()?)))
        .collect()
}

/// An attribute's name in the form.
pub enum Name<'f> {
    Interned(&'static names::Name),
    Text(&'f str),
}

impl<'f> Name<'f> {
    pub fn text(&self) -> &'f str {
        match self {
            Self::Interned(name) => &name.text,
            Self::Text(text) => text,
        }
    }
}

/// One attribute as stored: its name, kind and payload.
pub struct Attribute<'f> {
    pub name: Name<'f>,
    pub kind: u8,
    pub payload: &'f str,
}

impl Attribute<'_> {
    /// The value, decoded (`None` only for a form not written by `encode`).
    pub fn value(&self) -> Option<AttributeValue> {
        decode_value(self.kind, self.payload)
    }
}

/// A value from its kind and payload (`None` only for a form not written by `encode`).
fn decode_value(kind: u8, text: &str) -> Option<AttributeValue> {
    match kind {
        b'S' => Some(AttributeValue::S(text.to_string())),
        b'E' => Some(AttributeValue::S(unescape(text)?)),
        b'N' => Number::parse(text).ok().map(AttributeValue::N),
        b'B' => base64::engine::general_purpose::STANDARD.decode(text).ok().map(AttributeValue::B),
        _ => serde_json::from_str(text).ok(),
    }
}

/// The attributes of a form, in name order.
pub fn attributes(form: &str) -> Attributes<'_> {
    let header = header(form);
    let bytes = form.as_bytes();
    // A shape this process never gave out (a damaged form) reads as no attributes; so does a
    // shaped form cut inside its lengths.
    let (shape, lengths, at) = match header.layout {
        Layout::Unknown => (None, 0, form.len()),
        Layout::Shaped(shape) => match payloads_start(bytes, header.start, shape.attributes.len()) {
            Some(at) => (Some(shape), header.start, at),
            None => (None, 0, form.len()),
        },
        Layout::Named { .. } => (None, 0, header.start),
    };
    Attributes { form, at, lengths, shape, index: 0 }
}

pub struct Attributes<'f> {
    form: &'f str,
    /// Where the next attribute (unshaped) or the next payload (shaped) starts.
    at: usize,
    /// Where a shaped form's next length is.
    lengths: usize,
    shape: Option<&'static Shape>,
    index: usize,
}

impl<'f> Iterator for Attributes<'f> {
    type Item = Attribute<'f>;

    #[inline]
    fn next(&mut self) -> Option<Attribute<'f>> {
        let bytes = self.form.as_bytes();
        if let Some(shape) = self.shape {
            let attribute = shape.attributes.get(self.index)?;
            self.index += 1;
            let length = read_number(bytes, &mut self.lengths)?;
            let payload = self.form.get(self.at..self.at + length)?;
            self.at += length;
            return Some(Attribute { name: Name::Interned(attribute.name), kind: attribute.kind, payload });
        }
        if self.at >= bytes.len() {
            return None;
        }
        let name = match read_number(bytes, &mut self.at)? {
            0 => {
                let length = read_number(bytes, &mut self.at)?;
                let text = self.form.get(self.at..self.at + length)?;
                self.at += length;
                Name::Text(text)
            }
            id => Name::Interned(names::get(u32::try_from(id - 1).ok()?)?),
        };
        let kind = *bytes.get(self.at)?;
        self.at += 1;
        let length = read_number(bytes, &mut self.at)?;
        let payload = self.form.get(self.at..self.at + length)?;
        self.at += length;
        Some(Attribute { name, kind, payload })
    }
}

fn push_number(mut value: usize, out: &mut String) {
    while value >= 64 {
        out.push(char::from((value & 63) as u8 | 64));
        value >>= 6;
    }
    out.push(char::from(value as u8));
}

// Always inlined: it runs several times per attribute on every read, and as a call it was 16% of
// a Query's time (measured with perf on the Query benchmark).
#[allow(clippy::inline_always)]
#[inline(always)]
fn read_number(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let first = *bytes.get(*at)?;
    if first & 64 == 0 {
        *at += 1;
        return Some(usize::from(first));
    }
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= usize::from(byte & 63) << shift;
        if byte & 64 == 0 {
            return Some(value);
        }
        shift += 6;
        if shift >= usize::BITS as usize {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn needs_escape_finds_every_quote_backslash_and_control_at_every_place() {
        let naive = |t: &str| t.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
        let plain = "abcdefghijklmnopqrstuvwxyz é€𝄞 ~\u{7f}!";
        for length in 0..plain.len() {
            let Some(base) = plain.get(..length) else { continue };
            assert!(!super::needs_escape(base), "{base:?}");
            for special in ['"', '\\', '\u{0}', '\u{1f}', '\n', ' ', '\u{7f}', '!', '#'] {
                for at in (0..=base.len()).filter(|at| base.is_char_boundary(*at)) {
                    let text = format!("{}{special}{}", &base[..at], &base[at..]);
                    assert_eq!(super::needs_escape(&text), naive(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn payloads_written_directly_are_the_ones_json_writes() {
        let values = [
            AttributeValue::S(String::new()),
            AttributeValue::S("plain ascii".into()),
            AttributeValue::S("ünïcødé ✓ 𝄞".into()),
            AttributeValue::S("quote \" backslash \\ tab \t nul \u{0} del \u{7f}".into()),
            AttributeValue::N(Number::parse("-1.50e3").expect("number")),
            AttributeValue::N(Number::parse("12345678901234567890123456789012345678").expect("number")),
            AttributeValue::B(vec![0, 255, 1, 2, 3]),
            AttributeValue::B(Vec::new()),
            AttributeValue::Bool(true),
            AttributeValue::L(vec![AttributeValue::S("x".into())]),
        ];
        for value in &values {
            let mut payload = String::from("before");
            let kind = push_payload(value, &mut payload);
            let (json_kind, json_payload) = kind_and_payload_from_json(value);
            assert_eq!((kind, &payload["before".len()..]), (json_kind, json_payload.as_str()), "{value:?}");
        }
    }

    use super::*;

    #[test]
    fn numbers_read_back_and_every_byte_is_ascii() {
        for value in [0usize, 1, 63, 64, 4095, 4096, 400_000, usize::MAX] {
            let mut out = String::new();
            push_number(value, &mut out);
            assert!(out.is_ascii());
            let mut at = 0;
            assert_eq!(read_number(out.as_bytes(), &mut at), Some(value));
            assert_eq!(at, out.len());
        }
    }

    #[test]
    fn a_name_too_long_to_intern_is_kept_in_the_form() {
        let long = format!("x\"{}", "n".repeat(names::MAX_INTERNED_LEN));
        let item = Item::from([(long.clone(), AttributeValue::S("v".into()))]);
        let form = encode(&item, 3, &[] as &[&str]);
        assert!(form.contains(&long));
        assert_eq!(decode(&form), item);
        let mut json = String::new();
        render(&form, &mut json);
        assert_eq!(json, serde_json::to_string(&item).expect("json"));
    }

    #[test]
    fn numbers_compare_as_their_values() {
        let texts = [
            "-1000",
            "-999.5",
            "-12.45",
            "-12.4",
            "-1",
            "-0.5",
            "-0.05",
            "-0.0001",
            "0",
            "0.0001",
            "0.05",
            "0.5",
            "1",
            "1.5",
            "9",
            "10",
            "12.4",
            "12.45",
            "99.999",
            "100",
            "1000000000000000000000000000",
        ];
        for a in texts {
            for b in texts {
                let expected = Number::parse(a).expect("a").cmp(&Number::parse(b).expect("b"));
                assert_eq!(compare_numbers(a, b), expected, "{a} vs {b}");
                assert_eq!(Number::parse(a).expect("a").to_string(), a, "the texts are as Number writes them");
            }
        }
    }

    #[test]
    fn key_values_are_found_and_compare_as_dynamodb_orders_them() {
        use crate::value::KeyValue;
        let item = Item::from([
            ("a".to_string(), AttributeValue::S("x".into())),
            ("pk".to_string(), AttributeValue::S("say \"hi\"".into())),
            ("sk".to_string(), AttributeValue::N(Number::parse("-2.5").expect("n"))),
        ]);
        let form = encode(&item, 20, &["pk", "sk"]);
        let quoted = KeyValue::S("say \"hi\"".into());
        let (kind, text) = Stored::text_of(&quoted);
        assert_eq!(key_value(&form, 0), Some(Stored { kind, payload: &text }));
        assert_eq!(key_value(&form, 1), Some(Stored { kind: b'N', payload: "-2.5" }));
        let s = |v: &str| owned_text(Stored::text_of(&KeyValue::S(v.into())));
        let order = |a: &KeyText<'_>, b: &KeyText<'_>| Stored::of_text(a).compare(&Stored::of_text(b));
        // Escaped characters compare as the characters: '"' (0x22) sorts before '#' (0x23), and
        // a control character before a space.
        assert_eq!(order(&s("a\"z"), &s("a#")), std::cmp::Ordering::Less);
        assert_eq!(order(&s("a\u{1}"), &s("a ")), std::cmp::Ordering::Less);
        assert_eq!(order(&s("é"), &s("z")), std::cmp::Ordering::Greater);
        let b = |v: &[u8]| owned_text(Stored::text_of(&KeyValue::B(v.to_vec())));
        assert_eq!(order(&b(&[0xFF]), &b(&[0x00, 0xFF])), std::cmp::Ordering::Greater);
        assert_eq!(order(&b(&[1]), &b(&[1, 0])), std::cmp::Ordering::Less);
        let plain = Item::from([("a".to_string(), AttributeValue::S("x".into()))]);
        assert_eq!(key_value(&encode(&plain, 2, &["pk"]), 0), None);
    }

    #[test]
    fn an_item_without_a_shape_keeps_names_and_kinds_and_reads_the_same() {
        use crate::value::KeyValue;
        let long = "l".repeat(names::MAX_INTERNED_LEN + 1);
        let wide: Item = (0..=shapes::MAX_ATTRIBUTES)
            .map(|i| (format!("w{i:03}"), AttributeValue::N(Number::parse(&i.to_string()).expect("n"))))
            .chain([("pk".to_string(), AttributeValue::S("p \"1\"".into()))])
            .collect();
        let with_long = Item::from([
            (long, AttributeValue::S("v".into())),
            ("pk".to_string(), AttributeValue::S("p".into())),
            ("sk".to_string(), AttributeValue::B(vec![1, 2])),
        ]);
        for item in [wide, with_long] {
            let form = encode(&item, 11, &["pk", "sk"]);
            assert!(matches!(header(&form).layout, Layout::Named { .. }), "no shape");
            assert_eq!(decode(&form), item);
            let mut json = String::new();
            render(&form, &mut json);
            assert_eq!(json, serde_json::to_string(&item).expect("json"));
            let key = |which| key_value(&form, which).and_then(|v| v.key_value());
            assert_eq!(key(0), item.get("pk").and_then(KeyValue::from_attribute));
            assert_eq!(key(1), item.get("sk").and_then(KeyValue::from_attribute));
        }
        let shaped = Item::from([("pk".to_string(), AttributeValue::S("p".into()))]);
        assert!(matches!(header(&encode(&shaped, 3, &["pk"])).layout, Layout::Shaped(_)), "a shape");
    }

    proptest::proptest! {
        /// Any item of scalar, set and nested values, with names and strings that need escaping:
        /// the form reads back as the item and writes the JSON serde_json writes for it.
        #[test]
        fn an_item_reads_back_and_writes_as_serde_json_does(
            values in proptest::collection::vec(("[a-c\"\\\\\\x01\u{e9}]{1,3}", "[x\"\\\\\\n\u{1F600}]{0,4}", 0u8..5), 0..8),
            long_name in proptest::bool::ANY,
        ) {
            let mut item: Item = values
                .iter()
                .map(|(name, text, kind)| {
                    let value = match kind {
                        0 => AttributeValue::S(text.clone()),
                        1 => AttributeValue::N(Number::parse(&format!("{}.5", text.len())).expect("number")),
                        2 => AttributeValue::B(text.as_bytes().to_vec()),
                        3 => AttributeValue::Ss(vec![text.clone(), format!("{text}!")]),
                        _ => AttributeValue::M(Item::from([(text.clone(), AttributeValue::Bool(true))])),
                    };
                    (name.clone(), value)
                })
                .collect();
            if long_name {
                item.insert("n".repeat(names::MAX_INTERNED_LEN + 3), AttributeValue::Null);
            }
            let form = encode(&item, 7, &["a", "b"]);
            proptest::prop_assert_eq!(decode(&form), item.clone());
            let mut json = String::new();
            render(&form, &mut json);
            proptest::prop_assert_eq!(json, serde_json::to_string(&item).expect("json"));
            proptest::prop_assert_eq!(size(&form), 7);
            for (which, name) in ["a", "b"].into_iter().enumerate() {
                let expected = item.get(name).and_then(crate::value::KeyValue::from_attribute);
                proptest::prop_assert_eq!(key_value(&form, which).and_then(|v| v.key_value()), expected);
            }
        }
    }

    #[test]
    fn a_damaged_form_reads_as_fewer_attributes_not_a_panic() {
        let item = Item::from([("a".to_string(), AttributeValue::S("é value".into()))]);
        let form = encode(&item, 9, &["a"]);
        for cut in 0..form.len() {
            if let Some(prefix) = form.get(..cut) {
                assert!(decode(prefix).len() <= 1);
                render(prefix, &mut String::new());
            }
        }
    }
}
