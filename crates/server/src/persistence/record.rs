//! The write log's file format (the third; earlier ones are in [`super::earlier_formats`]).
//!
//! ```text
//! file:    MAGIC (16 bytes) | identity u64 LE | CRC32 of the 24 bytes before | append … | end mark
//! record:  length u32 LE | to the append's end u64 LE | CRC32 of those 12 bytes | CRC32 of the payload | payload
//! payload: kind u8 | identity u64 | sequence u64 | time in ms u64 | name | 0 | body
//! end mark: a record of kind 0 with no time, name or body, whose sequence is the next record's
//! ```
//!
//! Every record knows its place: the log it belongs to (a random identity, new with each file), its
//! sequence number (1, 2, 3 …) and how many bytes from its start the append it belongs to ends.
//! So a repeated record (a copied block), a missing one or one from another log is damage, never
//! replayed. An append (what one request or one TTL sweep did) is one or more records, written
//! together with a new end mark after them and fsynced once; the next append is written over that
//! mark. Reading tells apart:
//!
//! - clean: an intact end mark ends the file;
//! - torn (cut, never acknowledged): bytes after an intact end mark (an acknowledged append would
//!   have overwritten it); or an append that broke off, when the file ends no further than that
//!   append and its end mark could have reached (its first header says how far) — a crash while it
//!   was written, before its fsync returned;
//! - damaged (refused, naming the byte): zeros or nothing where the end mark of the last
//!   acknowledged append must be (the file lost its contents or was cut), a failed check with more
//!   of the log after it than the append in flight could have written, a repeated, missing or
//!   foreign record.

use std::hash::{BuildHasher, Hasher};

/// The first bytes of a log in this format.
pub const MAGIC: &[u8; 16] = b"dynalab-log/3\n\0\0";
/// The magic, the log's identity and their checksum.
pub const LOG_HEADER: usize = 28;
const RECORD_HEADER: usize = 20;
/// Kind, identity and sequence: what every payload starts with.
const PLACE: usize = 17;
/// The end mark's size in the file.
pub const END_MARK: usize = RECORD_HEADER + PLACE;
/// No record is larger: a request body is at most 16 MiB, plus its name and place.
const MAX_PAYLOAD: usize = 17 * 1024 * 1024;

const KIND_END: u8 = 0;
const KIND_REQUEST: u8 = 1;
const KIND_EXPIRED: u8 = 2;

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

/// Where a log's next record goes: the log's identity and the record's sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub identity: u64,
    pub next: u64,
}

impl Place {
    /// The place of the first record of a new log, with an identity of its own.
    pub fn new_log() -> Self {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher
            .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        hasher.write_u32(std::process::id());
        Self { identity: hasher.finish(), next: 1 }
    }

    /// The file's first bytes.
    pub fn header(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&self.identity.to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
        bytes
    }

    /// Encodes one append onto `out`, its records numbered from here.
    pub fn encode_append(&mut self, records: &[Record], out: &mut Vec<u8>) {
        let parts: Vec<(u8, &String, &String)> = records
            .iter()
            .map(|record| match &record.entry {
                Entry::Request { operation, body } => (KIND_REQUEST, operation, body),
                Entry::Expired { table, key } => (KIND_EXPIRED, table, key),
            })
            .collect();
        let sizes: Vec<usize> =
            parts.iter().map(|(_, name, body)| RECORD_HEADER + PLACE + 8 + name.len() + 1 + body.len()).collect();
        let mut to_end: usize = sizes.iter().sum();
        for ((record, (kind, name, body)), size) in records.iter().zip(parts).zip(sizes) {
            let rest = [&record.at_millis.to_le_bytes()[..], name.as_bytes(), &[0], body.as_bytes()];
            self.frame(kind, to_end, &rest, out);
            to_end -= size;
            self.next += 1;
        }
    }

    /// The end mark after the last append: the next record goes over it.
    pub fn end_mark(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(END_MARK);
        self.frame(KIND_END, END_MARK, &[], &mut bytes);
        bytes
    }

    fn frame(&self, kind: u8, to_append_end: usize, rest: &[&[u8]], out: &mut Vec<u8>) {
        let length = PLACE + rest.iter().map(|part| part.len()).sum::<usize>();
        let start = out.len();
        out.extend_from_slice(&u32::try_from(length).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&(to_append_end as u64).to_le_bytes());
        let checksum = crc32fast::hash(&out[start..]).to_le_bytes();
        out.extend_from_slice(&checksum);
        out.extend_from_slice(&[0; 4]);
        let payload = out.len();
        out.push(kind);
        out.extend_from_slice(&self.identity.to_le_bytes());
        out.extend_from_slice(&self.next.to_le_bytes());
        for part in rest {
            out.extend_from_slice(part);
        }
        let checksum = crc32fast::hash(&out[payload..]).to_le_bytes();
        out[start + 16..start + 20].copy_from_slice(&checksum);
    }
}

/// A log read up to the end of its last whole append.
#[derive(Debug, PartialEq, Eq)]
pub struct Read {
    /// The place after the last whole append; `None` when the file holds no header.
    pub place: Option<Place>,
    /// The records of each whole append, in order.
    pub appends: Vec<Vec<Record>>,
    /// Where the last whole append ends: where the end mark is, or must be written.
    pub good: usize,
    pub ending: Ending,
    /// Records skipped because they repeat an earlier one byte for byte (only when reading to repair).
    pub repeats_skipped: usize,
}

impl Read {
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.appends.iter().flatten()
    }

    pub fn record_count(&self) -> usize {
        self.appends.iter().map(Vec::len).sum()
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// An end mark and nothing after it.
    Clean,
    /// What follows `good` was never acknowledged: safe to cut.
    Torn,
    /// A record fails a check, or is missing, repeated or foreign; the reason says which.
    Damaged { at: usize, reason: String },
}

/// Reads a whole log file.
pub fn read(bytes: &[u8]) -> Read {
    read_log(bytes, false)
}

/// Reads a damaged log as far as it can be trusted, skipping records that repeat an earlier one
/// byte for byte (a copied block), for `dynalab repair`.
pub fn salvage(bytes: &[u8]) -> Read {
    read_log(bytes, true)
}

fn read_log(bytes: &[u8], skip_repeats: bool) -> Read {
    let empty = |ending| Read { place: None, appends: Vec::new(), good: 0, ending, repeats_skipped: 0 };
    if bytes.len() < LOG_HEADER {
        // A crash while a new log's header was written: nothing was ever acknowledged.
        let started = MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())]) || bytes.iter().all(|b| *b == 0);
        return match () {
            () if bytes.is_empty() => empty(Ending::Clean),
            () if started => empty(Ending::Torn),
            () => empty(Ending::Damaged { at: 0, reason: "the file does not start as a dynalab log".into() }),
        };
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return empty(Ending::Damaged { at: 0, reason: "the file does not start as a dynalab log".into() });
    }
    if crc32fast::hash(&bytes[..24]) != u32_at(bytes, 24) {
        return empty(Ending::Damaged { at: 0, reason: "the log's header fails its checksum".into() });
    }
    let identity = u64::from_le_bytes(bytes[16..24].try_into().unwrap_or_default());
    Reader { bytes, place: Place { identity, next: 1 }, ends_at_boundary: false, skip_repeats }.read(LOG_HEADER)
}

/// Reads the records of `bytes` from offset `from`, the first of them at `place`, where `bytes` end
/// just before the end mark that was there when they were taken (a compaction's tail).
pub fn read_until_mark(bytes: &[u8], from: usize, place: Place) -> Read {
    Reader { bytes, place, ends_at_boundary: true, skip_repeats: false }.read(from)
}

struct Reader<'a> {
    bytes: &'a [u8],
    place: Place,
    /// The bytes stop where the end mark was: reaching their end after a whole append is clean.
    ends_at_boundary: bool,
    skip_repeats: bool,
}

/// One frame as read at an offset, or why it cannot be.
enum Frame<'a> {
    Whole {
        kind: u8,
        identity: u64,
        sequence: u64,
        append_end: usize,
        rest: &'a [u8],
        len: usize,
    },
    /// No bytes at all.
    Nothing,
    /// A header of zero bytes: nothing was ever written here.
    Zeros,
    /// A frame that cannot be read; `append_end` is where its append ends when its header is sound.
    Broken {
        reason: &'static str,
        append_end: Option<usize>,
    },
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn frame_at(bytes: &[u8], at: usize) -> Frame<'_> {
    let rest = &bytes[at..];
    if rest.is_empty() {
        return Frame::Nothing;
    }
    if rest[..rest.len().min(RECORD_HEADER)].iter().all(|b| *b == 0) {
        return Frame::Zeros;
    }
    if rest.len() < RECORD_HEADER {
        return Frame::Broken { reason: "a record's header is cut short", append_end: None };
    }
    if crc32fast::hash(&rest[..12]) != u32_at(rest, 12) {
        return Frame::Broken { reason: "a record's header fails its checksum", append_end: None };
    }
    let length = u32_at(rest, 0) as usize;
    let to_end = usize::try_from(u64::from_le_bytes(rest[4..12].try_into().unwrap_or_default())).unwrap_or(usize::MAX);
    if !(PLACE..=MAX_PAYLOAD).contains(&length) || to_end < RECORD_HEADER + length {
        return Frame::Broken { reason: "a record claims an impossible length", append_end: None };
    }
    let append_end = Some(at.saturating_add(to_end));
    let Some(payload) = rest.get(RECORD_HEADER..RECORD_HEADER + length) else {
        return Frame::Broken { reason: "a record is cut short", append_end };
    };
    if crc32fast::hash(payload) != u32_at(rest, 16) {
        return Frame::Broken { reason: "a record fails its checksum", append_end };
    }
    Frame::Whole {
        kind: payload[0],
        identity: u64::from_le_bytes(payload[1..9].try_into().unwrap_or_default()),
        sequence: u64::from_le_bytes(payload[9..17].try_into().unwrap_or_default()),
        // A damaged length may claim anything: never past the end of the address space.
        append_end: at.saturating_add(to_end),
        rest: &payload[PLACE..],
        len: RECORD_HEADER + length,
    }
}

fn decode(kind: u8, rest: &[u8]) -> Option<Record> {
    let at_millis = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let rest = rest.get(8..)?;
    let split = rest.iter().position(|b| *b == 0)?;
    let name = std::str::from_utf8(&rest[..split]).ok()?.to_string();
    let body = std::str::from_utf8(&rest[split + 1..]).ok()?.to_string();
    let entry = match kind {
        KIND_REQUEST => Entry::Request { operation: name, body },
        KIND_EXPIRED => Entry::Expired { table: name, key: body },
        _ => return None,
    };
    Some(Record { at_millis, entry })
}

impl Reader<'_> {
    fn read(&self, from: usize) -> Read {
        let mut appends = Vec::new();
        let mut current = Vec::new();
        let (mut at, mut append_start, mut append_end) = (from, from, from);
        let (mut next, mut next_at_append_start) = (self.place.next, self.place.next);
        // Where each record read so far begins and ends, by sequence number (to recognise a repeat).
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut repeats_skipped = 0;
        let finish = |appends, good, next, ending, repeats_skipped| Read {
            place: Some(Place { identity: self.place.identity, next }),
            appends,
            good,
            ending,
            repeats_skipped,
        };
        loop {
            if self.ends_at_boundary && at == self.bytes.len() && at == append_start {
                return finish(appends, at, next, Ending::Clean, repeats_skipped);
            }
            let frame = frame_at(self.bytes, at);
            let Frame::Whole { kind, identity, sequence, append_end: says_end, rest, len } = frame else {
                let known_end = (at != append_start).then_some(append_end);
                let ending = self.broken_ending(&frame, at, append_start, known_end);
                return finish(appends, append_start, next_at_append_start, ending, repeats_skipped);
            };
            let damaged = |reason: String| Ending::Damaged { at, reason };
            if identity != self.place.identity {
                let reason =
                    format!("a record of another log (log {identity:016x}; this log is {:016x})", self.place.identity);
                return finish(appends, append_start, next_at_append_start, damaged(reason), repeats_skipped);
            }
            if at == append_start {
                append_end = says_end;
            } else if says_end != append_end {
                let reason = "a record's append ends elsewhere than its first record's says".to_string();
                return finish(appends, append_start, next_at_append_start, damaged(reason), repeats_skipped);
            }
            if kind == KIND_END {
                let ending = match () {
                    () if at != append_start => damaged("an end mark in the middle of an append".into()),
                    () if sequence != next => damaged(format!(
                        "the end mark says the log holds {} records; it holds {}",
                        sequence.saturating_sub(1),
                        next - 1
                    )),
                    // An intact end mark: whatever follows it was never acknowledged.
                    () if at + len == self.bytes.len() => Ending::Clean,
                    () => Ending::Torn,
                };
                return finish(appends, append_start, next_at_append_start, ending, repeats_skipped);
            }
            if sequence != next {
                if self.skip_repeats && at == append_start && self.repeats_earlier(&spans, sequence, at, len) {
                    repeats_skipped += 1;
                    at += len;
                    append_start = at;
                    continue;
                }
                let reason = if sequence < next {
                    format!("record {sequence} appears a second time, after record {}", next - 1)
                } else {
                    format!("records {next} to {} are missing", sequence - 1)
                };
                return finish(appends, append_start, next_at_append_start, damaged(reason), repeats_skipped);
            }
            let Some(record) = decode(kind, rest) else {
                let reason = "a record cannot be decoded".to_string();
                return finish(appends, append_start, next_at_append_start, damaged(reason), repeats_skipped);
            };
            spans.push((at, len));
            current.push(record);
            next += 1;
            at += len;
            if at == append_end {
                appends.push(std::mem::take(&mut current));
                append_start = at;
                next_at_append_start = next;
            }
        }
    }

    /// Whether the record at `at` is byte for byte the one read earlier with the same sequence number.
    fn repeats_earlier(&self, spans: &[(usize, usize)], sequence: u64, at: usize, len: usize) -> bool {
        let Some(&(earlier, earlier_len)) = sequence.checked_sub(self.place.next).and_then(|n| spans.get(n as usize))
        else {
            return false;
        };
        earlier_len == len && self.bytes[earlier..earlier + len] == self.bytes[at..at + len]
    }

    /// What a frame that cannot be read at `at` means. `known_end` is where the append it is part
    /// of ends, when an earlier record of that append said so.
    fn broken_ending(&self, frame: &Frame<'_>, at: usize, append_start: usize, known_end: Option<usize>) -> Ending {
        let damaged = |reason: String| Ending::Damaged { at, reason };
        let size = self.bytes.len();
        if at == append_start {
            // The end mark was here, fsynced with the last acknowledged append. An append in flight
            // writes over it, so its bytes (or the mark's own) must be here, not nothing or zeros.
            match frame {
                Frame::Nothing => {
                    return damaged("the log ends without its end mark: acknowledged records may be missing".into())
                }
                Frame::Zeros => {
                    let zeros = self.bytes[at..].iter().take_while(|b| **b == 0).count();
                    if at + zeros == size && zeros <= END_MARK {
                        // No longer than the mark itself: the last append's mark never landed, so
                        // its fsync never returned. Its records are whole, so they are kept.
                        return Ending::Torn;
                    }
                    return damaged(if at + zeros == size {
                        format!("{zeros} zero bytes run from here to the end of the file, where acknowledged records or the end mark were")
                    } else {
                        format!("{zeros} zero bytes where a record or the end mark must be")
                    });
                }
                Frame::Broken { append_end: None, .. } if size - at <= END_MARK => {
                    // No longer than the mark that was here: an append overwriting it broke off.
                    return Ending::Torn;
                }
                _ => {}
            }
        }
        let reason = match frame {
            Frame::Broken { reason, .. } => *reason,
            Frame::Zeros => "zero bytes where a record must be",
            _ => "a record is cut short",
        };
        if let Some(mark) = self.end_mark_after(at) {
            // An end mark is written with its append and fsynced with it: the records before it
            // were acknowledged.
            return damaged(format!("{reason}; the log's end mark follows at byte {mark}"));
        }
        let reach = match frame {
            Frame::Broken { append_end, .. } if at == append_start => *append_end,
            _ => known_end,
        };
        // The append in flight, and the end mark written with it, reach no further than this.
        if reach.is_some_and(|end| size <= end.saturating_add(END_MARK)) {
            return Ending::Torn;
        }
        damaged(format!(
            "{reason}, and {} bytes follow, more than the append in flight could have written; acknowledged records may be among them",
            size - at
        ))
    }

    /// The offset of an intact end mark of this log after `at`, if there is one.
    fn end_mark_after(&self, at: usize) -> Option<usize> {
        let identity = self.place.identity.to_le_bytes();
        let last = self.bytes.len().checked_sub(END_MARK)?;
        (at + 1..=last).find(|&p| {
            self.bytes[p + RECORD_HEADER] == KIND_END
                && self.bytes[p + RECORD_HEADER + 1..p + RECORD_HEADER + 9] == identity
                && matches!(frame_at(self.bytes, p), Frame::Whole { kind: KIND_END, .. })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(at: u64, operation: &str, body: &str) -> Record {
        Record { at_millis: at, entry: Entry::Request { operation: operation.into(), body: body.into() } }
    }

    fn expired() -> Record {
        Record { at_millis: 6, entry: Entry::Expired { table: "t".into(), key: r#"{"k":{"S":"1"}}"#.into() } }
    }

    /// A log of three appends (the second of two records), with the offset where each append
    /// begins and where the end mark is.
    fn log() -> (Vec<u8>, Vec<usize>, Place) {
        let mut place = Place::new_log();
        let mut bytes = place.header();
        let mut starts = Vec::new();
        for append in
            [vec![request(5, "PutItem", r#"{"a":1}"#)], vec![expired(), expired()], vec![request(7, "X", "{}")]]
        {
            starts.push(bytes.len());
            place.encode_append(&append, &mut bytes);
        }
        starts.push(bytes.len());
        bytes.extend(place.end_mark());
        (bytes, starts, place)
    }

    #[test]
    fn appends_round_trip_with_their_places() {
        let (bytes, starts, place) = log();
        let read = read(&bytes);
        assert_eq!(read.ending, Ending::Clean);
        assert_eq!((read.good, read.record_count(), read.appends.len()), (starts[3], 4, 3));
        assert_eq!(read.place, Some(place));
        assert_eq!(place.next, 5);
        assert_eq!(read.appends[1], vec![expired(), expired()]);
    }

    #[test]
    fn an_append_that_never_got_its_end_mark_is_torn_wherever_it_was_cut() {
        let (whole, starts, place) = log();
        // The third append in flight: written over the second's end mark, then cut anywhere.
        let mut before = whole[..starts[2]].to_vec();
        before.extend(Place { next: 4, ..place }.end_mark());
        for cut in starts[2] + 1..whole.len() - END_MARK {
            let mut torn = whole[..cut].to_vec();
            // Where the old mark was longer than what landed, its remaining bytes are still there.
            if torn.len() < before.len() {
                torn.extend(&before[torn.len()..]);
            }
            let read = read(&torn);
            assert_eq!(read.ending, Ending::Torn, "cut at {cut}");
            assert_eq!((read.record_count(), read.good), (3, starts[2]), "cut at {cut}");
            assert_eq!(read.place.map(|p| p.next), Some(4));
        }
        // The same append with zeros where its unwritten bytes were (the file's length grew first).
        let mut zeroed = whole.clone();
        zeroed[starts[2] + RECORD_HEADER + 3..].fill(0);
        assert_eq!((read(&zeroed).ending, read(&zeroed).good), (Ending::Torn, starts[2]));
        // Bytes after an intact end mark: the next append, never acknowledged.
        let mut after = whole.clone();
        after.extend([7; 40]);
        assert_eq!((read(&after).ending, read(&after).good), (Ending::Torn, starts[3]));
        let mut zeros_after = whole.clone();
        zeros_after.extend([0; 4000]);
        assert_eq!(read(&zeros_after).ending, Ending::Torn);
        assert_eq!(super::read(&MAGIC[..5]).ending, Ending::Torn);
        assert_eq!(super::read(b"").ending, Ending::Clean);
    }

    #[test]
    fn zeros_where_acknowledged_records_were_are_damage() {
        let (whole, starts, _) = log();
        let mut zeroed = whole.clone();
        zeroed[starts[1]..].fill(0);
        let read = read(&zeroed);
        assert!(
            matches!(&read.ending, Ending::Damaged { at, reason } if *at == starts[1] && reason.contains("zero bytes run from here to the end")),
            "{:?}",
            read.ending
        );
        assert_eq!(read.record_count(), 1);
        // Zeros from the middle of a record (a lost page) to the end: more than an append in flight.
        let mut from_middle = whole.clone();
        from_middle[starts[1] + RECORD_HEADER + 5..].fill(0);
        assert!(
            matches!(super::read(&from_middle).ending, Ending::Damaged { at, ref reason } if at == starts[1] && reason.contains("more than the append in flight")),
            "{:?}",
            super::read(&from_middle).ending
        );
        // The end mark alone zeroed: the last append's fsync never returned; its records are kept.
        let mut mark_lost = whole.clone();
        mark_lost[starts[3]..].fill(0);
        assert_eq!((super::read(&mark_lost).ending, super::read(&mark_lost).record_count()), (Ending::Torn, 4));
        let cut = &whole[..starts[3]];
        assert!(
            matches!(super::read(cut).ending, Ending::Damaged { at, ref reason } if at == starts[3] && reason.contains("without its end mark"))
        );
    }

    #[test]
    fn a_repeated_missing_or_foreign_record_is_damage_and_a_repeat_can_be_skipped() {
        let (whole, starts, _) = log();
        let mut repeated = whole[..starts[3]].to_vec();
        repeated.extend_from_slice(&whole[starts[2]..starts[3]]);
        repeated.extend_from_slice(&whole[starts[3]..]);
        let read = read(&repeated);
        assert_eq!(
            read.ending,
            Ending::Damaged { at: starts[3], reason: "record 4 appears a second time, after record 4".into() }
        );
        let salvaged = salvage(&repeated);
        assert_eq!((salvaged.record_count(), salvaged.repeats_skipped), (4, 1));
        // The end mark after the repeat says 4 records: the skipped one did not count.
        assert_eq!(salvaged.ending, Ending::Clean);

        let mut missing = whole[..starts[1]].to_vec();
        missing.extend_from_slice(&whole[starts[2]..]);
        assert_eq!(
            super::read(&missing).ending,
            Ending::Damaged { at: starts[1], reason: "records 2 to 3 are missing".into() }
        );

        let (other, other_starts, _) = log();
        let mut foreign = whole[..starts[3]].to_vec();
        foreign.extend_from_slice(&other[other_starts[2]..other_starts[3]]);
        assert!(
            matches!(super::read(&foreign).ending, Ending::Damaged { ref reason, .. } if reason.contains("another log"))
        );
    }

    #[test]
    fn a_failed_check_with_the_end_mark_after_it_is_damage_naming_its_offset() {
        let (whole, starts, _) = log();
        for (flip, at, reason) in [
            (starts[1] + 1, starts[1], "a record's header fails its checksum"),
            (starts[1] + 9, starts[1], "a record's header fails its checksum"),
            (starts[1] + 17, starts[1], "a record fails its checksum"),
            (starts[1] + 40, starts[1], "a record fails its checksum"),
            (starts[2] + 30, starts[2], "a record fails its checksum"),
        ] {
            let mut damaged = whole.clone();
            damaged[flip] ^= 0x5a;
            match read(&damaged).ending {
                Ending::Damaged { at: said, reason: why } => {
                    assert_eq!(said, at, "flipped {flip}");
                    assert!(why.starts_with(reason) && why.contains("end mark follows"), "flipped {flip}: {why}");
                }
                other => panic!("flipped {flip}: {other:?}"),
            }
        }
        let mut header = whole.clone();
        header[20] ^= 1;
        assert!(matches!(read(&header).ending, Ending::Damaged { at: 0, .. }));
    }

    #[test]
    fn a_checked_header_claiming_an_append_beyond_memory_is_damage_not_a_crash() {
        let (mut bytes, starts, _) = log();
        let at = starts[1];
        bytes[at + 4..at + 12].copy_from_slice(&u64::MAX.to_le_bytes());
        let checksum = crc32fast::hash(&bytes[at..at + 12]).to_le_bytes();
        bytes[at + 12..at + 16].copy_from_slice(&checksum);
        assert!(matches!(read(&bytes).ending, Ending::Damaged { .. }), "{:?}", read(&bytes).ending);
    }

    #[test]
    fn a_compactions_tail_reads_up_to_where_the_mark_was() {
        let (whole, starts, _) = log();
        let first = read(&whole[..starts[1] + END_MARK]);
        let place = first.place.expect("place");
        let tail = read_until_mark(&whole[..starts[3]], starts[1], Place { next: 2, ..place });
        assert_eq!((tail.record_count(), tail.appends.len()), (3, 2));
        assert_eq!(tail.ending, Ending::Clean);
    }
}
