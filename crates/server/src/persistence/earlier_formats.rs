//! Logs written by earlier versions, read once at start and rewritten in the current format
//! ([`super::record`]). Neither knows its records' places, so their torn-tail rules are weaker:
//! the rules they were written under are kept, not improved after the fact.
//!
//! - The second format (2026-12-03): the magic `dynalab-log/2\n\0\0`, then records of
//!   `length u32 LE | CRC32 of the length | CRC32 of the payload | kind u8 | time u64 | name | 0 | body`.
//! - The first format (before 2026-12-03): no magic; `length | CRC32 | time | operation | 0 | body`.

use super::record::{Ending, Entry, Record};

pub const SECOND_MAGIC: &[u8; 16] = b"dynalab-log/2\n\0\0";
const HEADER: usize = 12;
const MAX_PAYLOAD: usize = 17 * 1024 * 1024;

/// What an earlier log held: its records, the bytes they fill, and what followed them.
pub struct Earlier {
    pub records: Vec<Record>,
    pub good: usize,
    pub ending: Ending,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Which format a log's first bytes say it is in. Told by its header alone: a log is never read
/// as one format because it failed to be another, so a flipped byte in the magic, or a log from
/// a newer version, is refused whole, never taken for a torn first-format log and cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// The current format, an empty file, or a crash while its header was written.
    Current,
    Second,
    /// No magic: recognised by a first record whose checksum holds.
    First,
    /// `dynalab-log/N` with N above this build's.
    Newer(String),
    Unknown,
}

/// The formats this build reads, for a refusal to name.
pub const READABLE: &str =
    "dynalab-log/3 (this version's), dynalab-log/2, and the first, headerless format of before 2026-12-03";

pub fn format_of(bytes: &[u8]) -> Format {
    let magic = super::record::MAGIC;
    if bytes.is_empty() || magic.starts_with(&bytes[..bytes.len().min(magic.len())]) {
        return Format::Current;
    }
    if bytes.starts_with(SECOND_MAGIC) {
        return Format::Second;
    }
    if let Some(rest) = bytes.strip_prefix(b"dynalab-log/".as_slice()) {
        let version: String = rest.iter().take_while(|b| b.is_ascii_digit()).map(|b| char::from(*b)).collect();
        if version.parse::<u32>().is_ok_and(|v| v > 3) {
            return Format::Newer(format!("dynalab-log/{version}"));
        }
        return Format::Unknown;
    }
    let first_record_holds = (|| {
        let length = u32_at(bytes.get(..8)?, 0) as usize;
        let payload = bytes.get(8..8 + length)?;
        (length >= 9 && crc32fast::hash(payload) == u32_at(bytes, 4)).then_some(())
    })();
    if first_record_holds.is_some() {
        Format::First
    } else {
        Format::Unknown
    }
}

/// Why a log whose header this build does not recognise is left as it is: the file, the bytes
/// found, the formats read.
pub fn refusal(path: &std::path::Path, bytes: &[u8], format: &Format) -> String {
    let shown: String = bytes
        .iter()
        .take(16)
        .map(|b| if b.is_ascii_graphic() || *b == b' ' { char::from(*b).to_string() } else { format!("\\x{b:02x}") })
        .collect();
    let what = match format {
        Format::Newer(version) => format!("a log written by a newer version of dynalab ({version})"),
        _ => "not a log header this build recognises".to_string(),
    };
    format!(
        "{}: its first bytes `{shown}` are {what}; this build reads {READABLE}. Nothing was changed: start with another --data-dir, use the version that wrote it, or move the file aside",
        path.display()
    )
}

/// Reads a log of either earlier format.
pub fn read(bytes: &[u8]) -> Earlier {
    if bytes.starts_with(SECOND_MAGIC) {
        read_second(bytes)
    } else {
        read_first(bytes)
    }
}

fn damaged(records: Vec<Record>, at: usize, reason: &str) -> Earlier {
    Earlier { records, good: at, ending: Ending::Damaged { at, reason: reason.to_string() } }
}

fn read_second(bytes: &[u8]) -> Earlier {
    let mut records = Vec::new();
    let mut at = SECOND_MAGIC.len();
    loop {
        let rest = &bytes[at..];
        if rest.is_empty() {
            return Earlier { records, good: at, ending: Ending::Clean };
        }
        if rest.len() < HEADER || rest.iter().all(|b| *b == 0) {
            return Earlier { records, good: at, ending: Ending::Torn };
        }
        if crc32fast::hash(&rest[..4]) != u32_at(rest, 4) {
            return damaged(records, at, "a record's length fails its checksum");
        }
        let length = u32_at(rest, 0) as usize;
        if length > MAX_PAYLOAD {
            return damaged(records, at, "a record claims an impossible length");
        }
        let Some(payload) = rest.get(HEADER..HEADER + length) else {
            return Earlier { records, good: at, ending: Ending::Torn };
        };
        if crc32fast::hash(payload) != u32_at(rest, 8) {
            return damaged(records, at, "a record fails its checksum");
        }
        let Some(record) = decode_second(payload) else {
            return damaged(records, at, "a record cannot be decoded");
        };
        records.push(record);
        at += HEADER + length;
    }
}

fn decode_second(payload: &[u8]) -> Option<Record> {
    let (&kind, rest) = payload.split_first()?;
    let at_millis = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let (name, body) = name_and_body(rest.get(8..)?)?;
    let entry = match kind {
        1 => Entry::Request { operation: name, body },
        2 => Entry::Expired { table: name, key: body },
        _ => return None,
    };
    Some(Record { at_millis, entry })
}

fn name_and_body(rest: &[u8]) -> Option<(String, String)> {
    let split = rest.iter().position(|b| *b == 0)?;
    let name = std::str::from_utf8(&rest[..split]).ok()?.to_string();
    let body = std::str::from_utf8(&rest[split + 1..]).ok()?.to_string();
    Some((name, body))
}

fn read_first(bytes: &[u8]) -> Earlier {
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(header) = bytes.get(at..at + 8) else {
            return Earlier { records, good: at, ending: Ending::Torn };
        };
        let length = u32_at(header, 0) as usize;
        let Some(payload) = bytes.get(at + 8..at + 8 + length) else {
            return Earlier { records, good: at, ending: Ending::Torn };
        };
        let decoded = (crc32fast::hash(payload) == u32_at(header, 4)).then(|| {
            let at_millis = u64::from_le_bytes(payload.get(..8)?.try_into().ok()?);
            let (operation, body) = name_and_body(payload.get(8..)?)?;
            Some(Record { at_millis, entry: Entry::Request { operation, body } })
        });
        let Some(Some(record)) = decoded else {
            return damaged(records, at, "a record fails its checksum");
        };
        records.push(record);
        at += 8 + length;
    }
    Earlier { records, good: at, ending: Ending::Clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_format_still_reads() {
        let payload = [5u64.to_le_bytes().as_slice(), b"PutItem\0{}"].concat();
        let mut bytes = (payload.len() as u32).to_le_bytes().to_vec();
        bytes.extend(crc32fast::hash(&payload).to_le_bytes());
        bytes.extend(&payload);
        assert!(matches!(format_of(&bytes), Format::First | Format::Second));
        let read = read(&bytes);
        assert_eq!(read.ending, Ending::Clean);
        let entry = Entry::Request { operation: "PutItem".into(), body: "{}".into() };
        assert_eq!(read.records, vec![Record { at_millis: 5, entry }]);
    }

    #[test]
    fn the_second_format_still_reads() {
        let payload = [[1u8].as_slice(), &7u64.to_le_bytes(), b"t\0{\"k\":1}"].concat();
        let length = (payload.len() as u32).to_le_bytes();
        let mut bytes = SECOND_MAGIC.to_vec();
        bytes.extend(length);
        bytes.extend(crc32fast::hash(&length).to_le_bytes());
        bytes.extend(crc32fast::hash(&payload).to_le_bytes());
        bytes.extend(&payload);
        assert!(matches!(format_of(&bytes), Format::First | Format::Second));
        let read = read(&bytes);
        assert_eq!((read.ending, read.records.len(), read.good), (Ending::Clean, 1, bytes.len()));
        bytes[20] ^= 1;
        assert!(matches!(super::read(&bytes).ending, Ending::Damaged { at: 16, .. }));
    }
}
