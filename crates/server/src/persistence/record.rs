//! The write log's file format. A file starts with [`MAGIC`]; each record is
//!
//! ```text
//! length u32 LE | CRC32 of the length bytes | CRC32 of the payload | payload (length bytes)
//! payload: kind u8 | time in ms u64 LE | name | 0 | body
//! ```
//!
//! The length has its own checksum, so a damaged length is caught before it is trusted. Reading
//! tells three endings apart: a clean end; a torn tail (what a crash mid-append leaves: a partial
//! header, a whole header whose payload runs past the end of the file, or zero bytes the file
//! system allocated but never wrote), which is cut; and damage (any other failed check, including a
//! complete last record whose payload fails its checksum), which refuses to start.

/// The first bytes of a log in this format. A log without them is of the first format (see
/// [`read_first_format`]), rewritten in this one at start.
pub const MAGIC: &[u8; 16] = b"dynalab-log/2\n\0\0";

const HEADER: usize = 12;
/// No record is larger: a request body is at most 16 MiB, plus its name and time.
const MAX_PAYLOAD: usize = 17 * 1024 * 1024;

/// What a record tells the replay to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A request that changed the state: operation name and body.
    Request { operation: String, body: String },
    /// An item DynamoDB's TTL process removed: table name and key (DynamoDB JSON).
    Expired { table: String, key: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub at_millis: u64,
    pub entry: Entry,
}

pub fn encode(record: &Record) -> Vec<u8> {
    let (kind, name, body) = match &record.entry {
        Entry::Request { operation, body } => (1u8, operation, body),
        Entry::Expired { table, key } => (2u8, table, key),
    };
    let mut payload = Vec::with_capacity(1 + 8 + name.len() + 1 + body.len());
    payload.push(kind);
    payload.extend_from_slice(&record.at_millis.to_le_bytes());
    payload.extend_from_slice(name.as_bytes());
    payload.push(0);
    payload.extend_from_slice(body.as_bytes());
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX).to_le_bytes();
    let mut bytes = Vec::with_capacity(HEADER + payload.len());
    bytes.extend_from_slice(&length);
    bytes.extend_from_slice(&crc32fast::hash(&length).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    bytes
}

fn decode(payload: &[u8]) -> Option<Record> {
    let (&kind, rest) = payload.split_first()?;
    let at_millis = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let rest = rest.get(8..)?;
    let split = rest.iter().position(|b| *b == 0)?;
    let name = std::str::from_utf8(&rest[..split]).ok()?.to_string();
    let body = std::str::from_utf8(&rest[split + 1..]).ok()?.to_string();
    let entry = match kind {
        1 => Entry::Request { operation: name, body },
        2 => Entry::Expired { table: name, key: body },
        _ => return None,
    };
    Some(Record { at_millis, entry })
}

/// A log read up to its last good record.
#[derive(Debug, PartialEq, Eq)]
pub struct Read {
    pub records: Vec<Record>,
    /// Bytes of the file that hold the magic and the good records.
    pub good: usize,
    /// What follows `good`, if anything.
    pub ending: Ending,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    Clean,
    /// An incomplete final record, safe to cut: it was never acknowledged.
    Torn,
    /// A record fails a check and is not an incomplete final one; the reason says which check.
    Damaged {
        at: usize,
        reason: &'static str,
    },
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Reads a log in this format (magic included).
pub fn read(bytes: &[u8]) -> Read {
    let mut records = Vec::new();
    if bytes.len() < MAGIC.len() {
        // A crash while the magic of a new log was written: nothing was ever acknowledged.
        let ending = if MAGIC.starts_with(bytes) || bytes.iter().all(|b| *b == 0) {
            Ending::Torn
        } else {
            Ending::Damaged { at: 0, reason: "the file does not start as a dynalab log" }
        };
        return Read { records, good: 0, ending: if bytes.is_empty() { Ending::Clean } else { ending } };
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Read {
            records,
            good: 0,
            ending: Ending::Damaged { at: 0, reason: "the file does not start as a dynalab log" },
        };
    }
    let mut at = MAGIC.len();
    loop {
        let rest = &bytes[at..];
        if rest.is_empty() {
            return Read { records, good: at, ending: Ending::Clean };
        }
        if rest.len() < HEADER || rest.iter().all(|b| *b == 0) {
            // Part of a header, or zeros the file system allocated for an append that never
            // completed: an unacknowledged record.
            return Read { records, good: at, ending: Ending::Torn };
        }
        let length = u32_at(rest, 0);
        if crc32fast::hash(&rest[..4]) != u32_at(rest, 4) {
            return Read {
                records,
                good: at,
                ending: Ending::Damaged { at, reason: "a record's length fails its checksum" },
            };
        }
        let length = length as usize;
        if length > MAX_PAYLOAD {
            return Read {
                records,
                good: at,
                ending: Ending::Damaged { at, reason: "a record claims an impossible length" },
            };
        }
        let Some(payload) = rest.get(HEADER..HEADER + length) else {
            // A whole, checked header whose payload the file does not hold: the append was cut.
            return Read { records, good: at, ending: Ending::Torn };
        };
        if crc32fast::hash(payload) != u32_at(rest, 8) {
            return Read { records, good: at, ending: Ending::Damaged { at, reason: "a record fails its checksum" } };
        }
        let Some(record) = decode(payload) else {
            return Read { records, good: at, ending: Ending::Damaged { at, reason: "a record cannot be decoded" } };
        };
        records.push(record);
        at += HEADER + length;
    }
}

/// Reads a log of either format; says whether it was the first.
pub fn read_any(bytes: &[u8]) -> (Read, bool) {
    let first_format = !bytes.is_empty() && !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]);
    (if first_format { read_first_format(bytes) } else { read(bytes) }, first_format)
}

/// Reads a log of the first format (length, CRC32, payload of time, operation, 0, body; no magic),
/// as written before 2026-12-03, with that format's torn-tail rule.
pub fn read_first_format(bytes: &[u8]) -> Read {
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(header) = bytes.get(at..at + 8) else {
            return Read { records, good: at, ending: Ending::Torn };
        };
        let length = u32_at(header, 0) as usize;
        let Some(payload) = bytes.get(at + 8..at + 8 + length) else {
            return Read { records, good: at, ending: Ending::Torn };
        };
        let decoded = (crc32fast::hash(payload) == u32_at(header, 4)).then(|| {
            let at_millis = u64::from_le_bytes(payload.get(..8)?.try_into().ok()?);
            let rest = payload.get(8..)?;
            let split = rest.iter().position(|b| *b == 0)?;
            let operation = std::str::from_utf8(&rest[..split]).ok()?.to_string();
            let body = std::str::from_utf8(&rest[split + 1..]).ok()?.to_string();
            Some(Record { at_millis, entry: Entry::Request { operation, body } })
        });
        let Some(Some(record)) = decoded else {
            return Read { records, good: at, ending: Ending::Damaged { at, reason: "a record fails its checksum" } };
        };
        records.push(record);
        at += 8 + length;
    }
    Read { records, good: at, ending: Ending::Clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(at: u64, operation: &str, body: &str) -> Record {
        Record { at_millis: at, entry: Entry::Request { operation: operation.into(), body: body.into() } }
    }

    /// A log of three records and the offset where each begins.
    fn log() -> (Vec<u8>, Vec<usize>) {
        let mut bytes = MAGIC.to_vec();
        let mut starts = Vec::new();
        for record in [
            request(5, "PutItem", r#"{"a":1}"#),
            Record { at_millis: 6, entry: Entry::Expired { table: "t".into(), key: r#"{"k":{"S":"1"}}"#.into() } },
            request(7, "DeleteItem", "{}"),
        ] {
            starts.push(bytes.len());
            bytes.extend(encode(&record));
        }
        (bytes, starts)
    }

    #[test]
    fn records_round_trip() {
        let (bytes, _) = log();
        let read = read(&bytes);
        assert_eq!(read.ending, Ending::Clean);
        assert_eq!(read.good, bytes.len());
        assert_eq!(read.records.len(), 3);
        assert_eq!(read.records[1].entry, Entry::Expired { table: "t".into(), key: r#"{"k":{"S":"1"}}"#.into() });
    }

    #[test]
    fn an_incomplete_last_record_is_a_torn_tail_wherever_it_was_cut() {
        let (bytes, starts) = log();
        for cut in starts[2] + 1..bytes.len() {
            let read = read(&bytes[..cut]);
            assert_eq!(read.ending, Ending::Torn, "cut at {cut}");
            assert_eq!((read.records.len(), read.good), (2, starts[2]), "cut at {cut}");
        }
        let mut zeros = bytes.clone();
        zeros.extend([0; 100]);
        let read = read(&zeros);
        assert_eq!((read.ending, read.records.len(), read.good), (Ending::Torn, 3, bytes.len()), "zero-filled tail");
        assert_eq!(super::read(&MAGIC[..5]).ending, Ending::Torn);
        assert_eq!(super::read(b"").ending, Ending::Clean);
    }

    #[test]
    fn every_other_damage_refuses_naming_its_offset() {
        let (bytes, starts) = log();
        // A byte of each part of the middle record, and the whole last record's payload.
        let cases = [
            (starts[1], "a record's length fails its checksum"),
            (starts[1] + 3, "a record's length fails its checksum"),
            (starts[1] + 5, "a record's length fails its checksum"),
            (starts[1] + 9, "a record fails its checksum"),
            (starts[1] + 14, "a record fails its checksum"),
            (starts[2] + 14, "a record fails its checksum"),
            (bytes.len() - 1, "a record fails its checksum"),
        ];
        for (flip, reason) in cases {
            let mut damaged = bytes.clone();
            damaged[flip] ^= 0x5a;
            let at = if flip >= starts[2] { starts[2] } else { starts[1] };
            let read = read(&damaged);
            assert_eq!(read.ending, Ending::Damaged { at, reason }, "flipped byte {flip}");
            assert_eq!(read.good, at);
        }
        let mut garbage = bytes.clone();
        garbage.extend([0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert!(matches!(read(&garbage).ending, Ending::Damaged { .. }), "non-zero bytes after the last record");
        let mut lengthy = bytes[..starts[1]].to_vec();
        let huge = (u32::MAX).to_le_bytes();
        lengthy.extend(huge);
        lengthy.extend(crc32fast::hash(&huge).to_le_bytes());
        lengthy.extend([0; 20]);
        assert_eq!(
            read(&lengthy).ending,
            Ending::Damaged { at: starts[1], reason: "a record claims an impossible length" }
        );
    }

    #[test]
    fn the_first_format_still_reads() {
        let payload = [5u64.to_le_bytes().as_slice(), b"PutItem\0{}"].concat();
        let mut bytes = (payload.len() as u32).to_le_bytes().to_vec();
        bytes.extend(crc32fast::hash(&payload).to_le_bytes());
        bytes.extend(&payload);
        let read = read_first_format(&bytes);
        assert_eq!(read.ending, Ending::Clean);
        assert_eq!(read.records, vec![request(5, "PutItem", "{}")]);
    }
}
