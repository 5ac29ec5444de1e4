//! `--data-dir`: every acknowledged write survives a crash. Each successful write request is
//! appended to `writes.log` as one framed record and fsynced before the response is sent; at start
//! the log is replayed through the engine at each record's original time. A torn last record (a
//! crash mid-append) is detected by its length and CRC32 and cut off; damage anywhere else stops the
//! start with a clear message rather than load a silently different database.

use dynalab_engine::{Clock, Engine};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Operations that change data and so are logged.
const WRITES: [&str; 11] = [
    "CreateTable",
    "DeleteTable",
    "UpdateTable",
    "UpdateTimeToLive",
    "TagResource",
    "UntagResource",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];

pub fn is_write(operation: &str) -> bool {
    WRITES.contains(&operation)
}

/// Wall-clock time, except while the log is replayed: then each record's own time, so replayed
/// writes see the clock they first saw (creation times, token windows).
#[derive(Default)]
pub struct ReplayableClock {
    replaying_at: AtomicU64,
}

impl Clock for ReplayableClock {
    fn now_millis(&self) -> u64 {
        match self.replaying_at.load(Ordering::SeqCst) {
            0 => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64),
            at => at,
        }
    }
}

/// The open, locked log of a data directory.
pub struct WriteLog {
    file: File,
    _lock: File,
    clock: Arc<ReplayableClock>,
}

/// A log replayed with more than this many records, and more than twice as many as the state
/// needs, is compacted at start.
const COMPACT_AFTER_RECORDS: usize = 1000;

/// Record framing: payload length (u32 LE), CRC32 of the payload (u32 LE), then the payload:
/// time in ms (u64 LE), operation, a zero byte, the request body.
const HEADER: usize = 8;

fn encode(at_millis: u64, operation: &str, body: &str) -> Vec<u8> {
    let mut payload = Vec::with_capacity(8 + operation.len() + 1 + body.len());
    payload.extend_from_slice(&at_millis.to_le_bytes());
    payload.extend_from_slice(operation.as_bytes());
    payload.push(0);
    payload.extend_from_slice(body.as_bytes());
    let mut record = Vec::with_capacity(HEADER + payload.len());
    record.extend_from_slice(&u32::try_from(payload.len()).unwrap_or(u32::MAX).to_le_bytes());
    record.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    record.extend_from_slice(&payload);
    record
}

/// One decoded record: time, operation, body.
type Record = (u64, String, String);

fn decode(payload: &[u8]) -> Option<Record> {
    let at = u64::from_le_bytes(payload.get(..8)?.try_into().ok()?);
    let rest = payload.get(8..)?;
    let split = rest.iter().position(|b| *b == 0)?;
    let operation = std::str::from_utf8(&rest[..split]).ok()?.to_string();
    let body = std::str::from_utf8(&rest[split + 1..]).ok()?.to_string();
    Some((at, operation, body))
}

/// Reads every whole record; returns them and the byte length of the good prefix, or an error if a
/// damaged record is followed by more data (not a torn tail).
fn read_records(bytes: &[u8]) -> Result<(Vec<Record>, usize), String> {
    let mut records = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let header = bytes.get(at..at + HEADER);
        let parsed = header.and_then(|h| {
            let len = u32::from_le_bytes(h[..4].try_into().ok()?) as usize;
            let crc = u32::from_le_bytes(h[4..8].try_into().ok()?);
            let payload = bytes.get(at + HEADER..at + HEADER + len)?;
            (crc32fast::hash(payload) == crc).then_some((len, payload))
        });
        if let Some((len, record)) = parsed.and_then(|(len, payload)| Some((len, decode(payload)?))) {
            records.push(record);
            at += HEADER + len;
        } else {
            // A crash mid-append leaves a short or unchecked tail: the record claims more bytes
            // than the file has. Anything else is damage.
            let claimed = header.map_or(usize::MAX, |h| u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize);
            let torn = header.is_none() || at + HEADER + claimed >= bytes.len();
            if torn {
                return Ok((records, at));
            }
            return Err(format!("writes.log is damaged at byte {at} (a record fails its checksum); refusing to start"));
        }
    }
    Ok((records, at))
}

impl WriteLog {
    /// Opens (creating if needed) and locks `dir`, and replays its log into a new engine.
    pub fn open(dir: &Path) -> Result<(Self, Engine), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let lock_path: PathBuf = dir.join("LOCK");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
        lock.try_lock().map_err(|_| {
            format!("{} is in use by another dynalab serve; stop it or choose another --data-dir", dir.display())
        })?;
        let log_path = dir.join("writes.log");
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&log_path)
            .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", log_path.display()))?;
        let (records, good) = read_records(&bytes)?;
        if good < bytes.len() {
            eprintln!("dynalab: dropped a torn last record ({} bytes) from {}", bytes.len() - good, log_path.display());
            file.set_len(good as u64).map_err(|e| e.to_string())?;
            file.sync_all().map_err(|e| e.to_string())?;
        }
        file.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
        let clock = Arc::new(ReplayableClock::default());
        let mut engine = Engine::new(clock.clone());
        for (at, operation, body) in &records {
            clock.replaying_at.store((*at).max(1), Ordering::SeqCst);
            // A logged request succeeded once on exactly this state, so it succeeds again.
            let _ = engine.execute(operation, body);
        }
        clock.replaying_at.store(0, Ordering::SeqCst);
        let mut log = Self { file, _lock: lock, clock };
        let state = engine.recreate_requests();
        if records.len() > COMPACT_AFTER_RECORDS && records.len() > 2 * state.len() {
            log.compact(dir, &state)?;
        }
        Ok((log, engine))
    }

    /// Replaces the log with the requests that recreate the current state: written beside it,
    /// fsynced, then renamed over it, so a crash at any point leaves one whole log.
    fn compact(&mut self, dir: &Path, state: &[(&'static str, String)]) -> Result<(), String> {
        let fail = |e: io::Error| format!("cannot compact {}: {e}", dir.display());
        let fresh = dir.join("writes.log.compacting");
        let mut file = File::create(&fresh).map_err(fail)?;
        let now = self.clock.now_millis();
        for (operation, body) in state {
            file.write_all(&encode(now, operation, body)).map_err(fail)?;
        }
        file.sync_all().map_err(fail)?;
        std::fs::rename(&fresh, dir.join("writes.log")).map_err(fail)?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(fail)?;
        self.file = OpenOptions::new().append(true).open(dir.join("writes.log")).map_err(fail)?;
        Ok(())
    }

    /// Appends one acknowledged write and makes it durable before the caller answers.
    pub fn append(&mut self, operation: &str, body: &str) -> io::Result<()> {
        let record = encode(self.clock.now_millis(), operation, body);
        self.file.write_all(&record)?;
        self.file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_torn_tail_is_cut() {
        let mut bytes = encode(5, "PutItem", "{\"a\":1}");
        bytes.extend(encode(6, "DeleteItem", "{}"));
        let whole = bytes.len();
        bytes.extend(&encode(7, "PutItem", "{\"b\":2}")[..10]);
        let (records, good) = read_records(&bytes).expect("readable");
        assert_eq!(records, vec![(5, "PutItem".into(), "{\"a\":1}".into()), (6, "DeleteItem".into(), "{}".into())]);
        assert_eq!(good, whole);
    }

    #[test]
    fn damage_before_the_end_is_refused() {
        let mut bytes = encode(5, "PutItem", "{\"a\":1}");
        bytes[12] ^= 0xff;
        bytes.extend(encode(6, "DeleteItem", "{}"));
        assert!(read_records(&bytes).unwrap_err().contains("damaged"));
    }
}
