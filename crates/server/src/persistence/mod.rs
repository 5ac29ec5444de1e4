//! `--data-dir`: every acknowledged write survives a crash, and nothing unacknowledged is applied.
//!
//! Every request the engine reports as having changed its state is appended to `writes.log` as
//! checked records that know their place ([`record`]), with a new end mark after them, and fsynced
//! before the response is sent; so is every item the TTL process removes. At start the log is
//! replayed through a new engine, each record at its own time. What a crash mid-append leaves (an
//! append that never got its end mark) is cut, its bytes kept beside the log; anything else —
//! zeros where acknowledged records were, a repeated or missing record, a failed check — refuses to
//! start, naming the byte offset, and `dynalab repair` keeps what can be trusted after keeping a
//! copy. An append that fails (disk full, I/O error) is cut back, and the engine is rebuilt from the
//! log, so what is in memory is always what is on disk. The log is compacted while serving when it
//! grows well past what the state needs: written beside it, fsynced, then renamed over it.
//!
//! Assumptions: one process owns a data directory (a `LOCK` file held with an OS lock); fsync means
//! durable; rename within a directory is atomic (docs/persistence.md).

pub mod earlier_formats;
pub mod record;

use dynalab_engine::value::Item;
use dynalab_engine::{Clock, Engine};
use earlier_formats::Format;
use record::{Ending, Entry, Place, Record, END_MARK, LOG_HEADER};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Wall-clock time, except while the log is replayed: then each record's own time, so replayed
/// writes see the clock they first saw (creation times, token windows, TTL).
#[derive(Default)]
pub struct ReplayableClock {
    replaying_at: AtomicU64,
}

impl Clock for ReplayableClock {
    fn now_millis(&self) -> u64 {
        match self.replaying_at.load(Ordering::SeqCst) {
            0 => wall_clock_millis(),
            at => at,
        }
    }
}

fn wall_clock_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64).max(1)
}

/// The open, locked log of a data directory.
pub struct WriteLog {
    dir: PathBuf,
    file: File,
    _lock: File,
    clock: Arc<ReplayableClock>,
    /// The log's identity and the next record's sequence number.
    place: Place,
    /// Where the end mark is: the end of the last whole append, where the next one is written.
    good: u64,
    /// The log's size when it last held just the state (after a compaction or at open).
    base: u64,
    /// Set when a failed append could not be cut back: every later append is refused.
    broken: Option<String>,
    /// A compaction running beside the server, if one is.
    compaction: Option<Compaction>,
    #[cfg(test)]
    fail_next_append: Option<io::ErrorKind>,
}

/// The log is compacted once it is larger than this and than `COMPACT_GROWTH` times its size
/// when it last held just the state.
const COMPACT_MIN_BYTES: u64 = 8 * 1024 * 1024;
const COMPACT_GROWTH: u64 = 4;

const LOG: &str = "writes.log";
const COMPACTING: &str = "writes.log.compacting";

/// A compaction beside the server: a thread replays the first `prefix` bytes of the log (up to
/// the end mark that was at `prefix`, whose place was `prefix_place`) into an engine of its own
/// and writes the records that recreate its state, as a new log, to `writes.log.compacting`. The
/// server goes on appending meanwhile; when the thread is done, the appends after `prefix` are
/// renumbered into the new log after the snapshot, and the file renamed over the log. The lock is
/// held only for that copy and the rename.
struct Compaction {
    prefix: u64,
    prefix_place: Place,
    worker: std::thread::JoinHandle<Result<Snapshot, String>>,
}

/// A compacted log written beside the log, without its end mark yet.
struct Snapshot {
    len: u64,
    place: Place,
}

impl WriteLog {
    /// Opens (creating if needed) and locks `dir`, and replays its log into a new engine.
    pub fn open(dir: &Path) -> Result<(Self, Engine), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let lock = lock(dir)?;
        // A compaction the last process did not finish: the log itself is whole, this is not.
        let _ = std::fs::remove_file(dir.join(COMPACTING));
        let path = dir.join(LOG);
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let clock = Arc::new(ReplayableClock::default());
        let mut log = Self {
            dir: dir.to_path_buf(),
            file,
            _lock: lock,
            clock: clock.clone(),
            place: Place::new_log(),
            good: 0,
            base: 0,
            broken: None,
            compaction: None,
            #[cfg(test)]
            fail_next_append: None,
        };
        let format = earlier_formats::format_of(&bytes);
        if matches!(format, Format::Newer(_) | Format::Unknown) {
            return Err(earlier_formats::refusal(&path, &bytes, &format));
        }
        if format != Format::Current {
            // Read under the rules it was written under, then rewritten in this format.
            let earlier = earlier_formats::read(&bytes);
            match earlier.ending {
                Ending::Clean => {}
                Ending::Damaged { at, reason } => return Err(damaged_message(&path, at, &reason, dir)),
                Ending::Torn => {
                    keep_torn(
                        dir,
                        &path,
                        &bytes[earlier.good..],
                        "of an incomplete last record of a log of an earlier format",
                    )?;
                }
            }
            let engine = replay(earlier.records.iter(), &clock);
            log.compact(&engine)?;
            return Ok((log, engine));
        }
        let read = record::read(&bytes);
        match &read.ending {
            Ending::Clean => {}
            Ending::Damaged { at, reason } => return Err(damaged_message(&path, *at, reason, dir)),
            Ending::Torn => {
                keep_torn(
                    dir,
                    &path,
                    &bytes[read.good..],
                    "of an append that never got its end mark (so was never acknowledged)",
                )?;
            }
        }
        let engine = replay(read.records(), &clock);
        if let Some(place) = read.place {
            log.place = place;
            log.good = read.good as u64;
            if read.ending != Ending::Clean {
                log.write_end_mark().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
        } else {
            // An empty file, or a crash while a new log's header was written.
            let mut fresh = log.place.header();
            fresh.extend(log.place.end_mark());
            log.file
                .set_len(0)
                .and_then(|()| log.file.seek(SeekFrom::Start(0)).map(drop))
                .and_then(|()| log.file.write_all(&fresh))
                .and_then(|()| log.file.sync_all())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            log.good = LOG_HEADER as u64;
        }
        log.base = log.good;
        // A long history is shortened.
        if read.record_count() > 1000 && log.good > COMPACT_GROWTH * state_bytes(&engine) {
            log.compact(&engine)?;
        }
        Ok((log, engine))
    }

    /// Writes the end mark at `good` and cuts whatever followed it.
    fn write_end_mark(&mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(self.good))?;
        self.file.write_all(&self.place.end_mark())?;
        self.file.set_len(self.good + END_MARK as u64)?;
        self.file.sync_all()
    }

    /// Holds the engine's clock at the present millisecond until [`WriteLog::release_time`], so
    /// what a request reads of the clock is exactly the time its record replays at (a table's
    /// creation time, a stream's label). Returns that time.
    pub fn hold_time(&self) -> u64 {
        let now = wall_clock_millis();
        self.clock.replaying_at.store(now, Ordering::SeqCst);
        now
    }

    pub fn release_time(&self) {
        self.clock.replaying_at.store(0, Ordering::SeqCst);
    }

    /// Appends what one request or one TTL sweep did at `at_millis` (from [`WriteLog::hold_time`]),
    /// and makes it durable before the caller answers. On failure nothing of it stays in the log:
    /// the caller must then rebuild its engine with [`WriteLog::rebuild`], since the engine already
    /// applied it.
    pub fn append(&mut self, at_millis: u64, entries: Vec<Entry>) -> io::Result<()> {
        if let Some(reason) = &self.broken {
            return Err(io::Error::other(reason.clone()));
        }
        self.check_still_ours()?;
        let records: Vec<Record> = entries.into_iter().map(|entry| Record { at_millis, entry }).collect();
        let before = self.place;
        let mut bytes = Vec::new();
        self.place.encode_append(&records, &mut bytes);
        let records_len = bytes.len() as u64;
        bytes.extend(self.place.end_mark());
        match self.write_durably(&bytes) {
            Ok(()) => {
                self.good += records_len;
                Ok(())
            }
            Err(error) => {
                // Put the old end mark back, so later appends follow the last acknowledged one.
                self.place = before;
                if let Err(cut) = self.write_end_mark() {
                    self.broken = Some(format!(
                        "the write log could not be cut back after a failed append ({cut}); restart the server"
                    ));
                }
                Err(error)
            }
        }
    }

    /// Whether the log at the data directory's path is still the file this server writes: a
    /// directory removed, or replaced (another server may have started on the path), is noticed
    /// before a write is acknowledged, and from then on no write is.
    fn check_still_ours(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let path = self.dir.join(LOG);
            let same = match (self.file.metadata(), std::fs::metadata(&path)) {
                (Ok(open), Ok(there)) => open.dev() == there.dev() && open.ino() == there.ino(),
                _ => false,
            };
            if !same {
                let reason = format!(
                    "{} was removed or replaced while serving: no write is acknowledged any more (restart the server, and check where its data went)",
                    path.display()
                );
                self.broken = Some(reason.clone());
                return Err(io::Error::other(reason));
            }
        }
        Ok(())
    }

    fn write_durably(&mut self, bytes: &[u8]) -> io::Result<()> {
        #[cfg(test)]
        if let Some(kind) = self.fail_next_append.take() {
            // Part of the append reaches the file, as on a disk that fills mid-write.
            self.file.seek(SeekFrom::Start(self.good))?;
            self.file.write_all(&bytes[..bytes.len() / 2])?;
            return Err(io::Error::from(kind));
        }
        self.file.seek(SeekFrom::Start(self.good))?;
        self.file.write_all(bytes)?;
        self.file.sync_data()
    }

    /// A new engine holding exactly what the log holds: after a failed append, the state without
    /// the write that could not be made durable.
    pub fn rebuild(&mut self) -> Result<Engine, String> {
        if let Some(reason) = &self.broken {
            // The file at the path is not ours (or is gone): what it holds is not this state.
            return Err(reason.clone());
        }
        let path = self.dir.join(LOG);
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let end = (self.good as usize + END_MARK).min(bytes.len());
        let read = record::read(&bytes[..end]);
        if let Ending::Damaged { at, reason } = &read.ending {
            return Err(damaged_message(&path, *at, reason, &self.dir));
        }
        Ok(replay(read.records(), &self.clock))
    }

    /// Finishes a compaction whose thread is done, and starts one if the log has grown well past
    /// what `engine`'s state needs.
    pub fn compact_if_grown(&mut self, engine: &Engine) {
        if self.compaction.as_ref().is_some_and(|c| c.worker.is_finished()) {
            self.finish_compaction();
        }
        let grown =
            self.good > COMPACT_MIN_BYTES && self.good > COMPACT_GROWTH * self.base.max(state_bytes(engine) / 2);
        if grown && self.compaction.is_none() && self.broken.is_none() {
            self.start_compaction();
        }
    }

    fn start_compaction(&mut self) {
        let (prefix, dir) = (self.good, self.dir.clone());
        let worker = std::thread::Builder::new().name("dynalab-compaction".into()).spawn(move || {
            let fail = |e: io::Error| format!("cannot compact {}: {e}", dir.display());
            let mut bytes = std::fs::read(dir.join(LOG)).map_err(fail)?;
            bytes.truncate(prefix as usize);
            let read = read_prefix(&bytes);
            if let Ending::Damaged { at, reason } = &read.ending {
                return Err(damaged_message(&dir.join(LOG), *at, reason, &dir));
            }
            let engine = replay(read.records(), &Arc::new(ReplayableClock::default()));
            let mut place = Place::new_log();
            let snapshot = snapshot_bytes(&engine, &mut place);
            write_new(&dir.join(COMPACTING), &snapshot).map_err(fail)?;
            Ok(Snapshot { len: snapshot.len() as u64, place })
        });
        match worker {
            Ok(worker) => self.compaction = Some(Compaction { prefix, prefix_place: self.place, worker }),
            Err(e) => eprintln!("dynalab: cannot start a compaction ({e}); the log stays as it was"),
        }
    }

    /// Renumbers the appends made since the compaction began into the new log after its snapshot,
    /// adds the end mark, then puts the result in place of the log.
    fn finish_compaction(&mut self) {
        let Some(compaction) = self.compaction.take() else { return };
        let fresh = self.dir.join(COMPACTING);
        let snapshot = match compaction.worker.join() {
            Ok(Ok(snapshot)) => snapshot,
            Ok(Err(e)) => {
                let _ = std::fs::remove_file(&fresh);
                eprintln!("dynalab: {e}; the log stays as it was");
                return;
            }
            Err(_) => {
                let _ = std::fs::remove_file(&fresh);
                eprintln!("dynalab: the compaction thread failed; the log stays as it was");
                return;
            }
        };
        let copied = (|| {
            let mut tail = vec![0; (self.good - compaction.prefix) as usize];
            let mut log = File::open(self.dir.join(LOG)).map_err(|e| e.to_string())?;
            log.seek(SeekFrom::Start(compaction.prefix)).map_err(|e| e.to_string())?;
            log.read_exact(&mut tail).map_err(|e| e.to_string())?;
            let read = record::read_until_mark(&tail, 0, compaction.prefix_place);
            if let Ending::Damaged { at, reason } = read.ending {
                return Err(damaged_message(&self.dir.join(LOG), compaction.prefix as usize + at, &reason, &self.dir));
            }
            let mut place = snapshot.place;
            let mut bytes = Vec::with_capacity(tail.len() + END_MARK);
            for append in &read.appends {
                place.encode_append(append, &mut bytes);
            }
            let records_len = bytes.len() as u64;
            bytes.extend(place.end_mark());
            let mut file = OpenOptions::new().append(true).open(&fresh).map_err(|e| e.to_string())?;
            file.write_all(&bytes).and_then(|()| file.sync_all()).map_err(|e| e.to_string())?;
            Ok((snapshot.len + records_len, place))
        })();
        match copied {
            Ok((good, place)) => {
                if let Err(e) = self.replace_log(good, snapshot.len, place) {
                    eprintln!("dynalab: {e}");
                }
            }
            Err(e) => {
                let _ = std::fs::remove_file(&fresh);
                eprintln!("dynalab: cannot compact {}: {e}; the log stays as it was", self.dir.display());
            }
        }
    }

    /// Renames the compacted file over the log and follows it: `good` is where its end mark is,
    /// `base` the size of its snapshot part, `place` its next record's.
    fn replace_log(&mut self, good: u64, base: u64, place: Place) -> Result<(), String> {
        let fail = |e: io::Error| format!("cannot compact {}: {e}", self.dir.display());
        std::fs::rename(self.dir.join(COMPACTING), self.dir.join(LOG)).map_err(fail)?;
        // From here the new log is the log: the handle must follow it.
        match OpenOptions::new().read(true).write(true).open(self.dir.join(LOG)) {
            Ok(file) => self.file = file,
            Err(e) => {
                self.broken = Some(format!("the compacted write log could not be reopened ({e}); restart the server"));
                return Err(fail(e));
            }
        }
        self.good = good;
        self.base = base;
        self.place = place;
        File::open(&self.dir).and_then(|d| d.sync_all()).map_err(fail)
    }

    /// Waits for a running compaction and finishes it (tests and shutdown).
    pub fn wait_for_compaction(&mut self) {
        if let Some(compaction) = &self.compaction {
            while !compaction.worker.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            self.finish_compaction();
        }
    }

    /// Replaces the log with a new one holding the records that recreate `engine`'s state, at once
    /// (at start, before any client): written beside it, fsynced, then renamed over it, so a crash
    /// at any point leaves one whole log.
    fn compact(&mut self, engine: &Engine) -> Result<(), String> {
        let mut place = Place::new_log();
        let mut snapshot = snapshot_bytes(engine, &mut place);
        let len = snapshot.len() as u64;
        snapshot.extend(place.end_mark());
        write_new(&self.dir.join(COMPACTING), &snapshot).map_err(|e| {
            let _ = std::fs::remove_file(self.dir.join(COMPACTING));
            format!("cannot compact {}: {e}", self.dir.display())
        })?;
        self.replace_log(len, len, place)
    }

    /// The log's size in bytes, up to its end mark.
    pub fn len(&self) -> u64 {
        self.good
    }

    /// Whether the log holds no record.
    pub fn is_empty(&self) -> bool {
        self.good <= LOG_HEADER as u64
    }

    /// Makes the next append fail with `kind` after writing half its bytes (tests only).
    #[cfg(test)]
    pub fn fail_next_append(&mut self, kind: io::ErrorKind) {
        self.fail_next_append = Some(kind);
    }
}

/// Reads a log's first bytes, which end where its end mark was.
fn read_prefix(bytes: &[u8]) -> record::Read {
    let header = record::read(bytes.get(..LOG_HEADER).unwrap_or(bytes));
    match header.place {
        Some(place) => record::read_until_mark(bytes, LOG_HEADER, place),
        None => header,
    }
}

/// A new log that recreates `engine`'s state: its header, then one append of one record per
/// request (no end mark), numbered from `place`.
fn snapshot_bytes(engine: &Engine, place: &mut Place) -> Vec<u8> {
    let mut bytes = place.header();
    let records: Vec<Record> = engine
        .recreate_requests()
        .into_iter()
        .map(|request| Record {
            at_millis: request.at_millis.max(1),
            entry: Entry::Request { operation: request.operation.name().to_string(), body: request.body },
        })
        .collect();
    if !records.is_empty() {
        place.encode_append(&records, &mut bytes);
    }
    bytes
}

/// Writes `bytes` to a new file at `path` and makes it durable.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The items and tables a log of `engine` would hold, roughly, in bytes.
fn state_bytes(engine: &Engine) -> u64 {
    engine
        .table_names()
        .iter()
        .filter_map(|t| engine.totals(t, None).ok())
        .map(|t| t.bytes as u64 + 64 * t.items as u64)
        .sum()
}

fn lock(dir: &Path) -> Result<File, String> {
    let path = dir.join("LOCK");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    lock.try_lock().map_err(|_| {
        format!("{} is in use by another dynalab process; stop it or choose another --data-dir", dir.display())
    })?;
    Ok(lock)
}

fn damaged_message(path: &Path, at: usize, reason: &str, dir: &Path) -> String {
    format!(
        "{} is damaged at byte {at} ({reason}); refusing to start. `dynalab repair --data-dir {}` keeps a copy of the log and keeps only what can be trusted: the records before byte {at} (and any repeated record once)",
        path.display(),
        dir.display()
    )
}

/// Keeps the `torn` bytes cut from the end of the log at `path` beside it, and says so.
fn keep_torn(dir: &Path, path: &Path, torn: &[u8], what: &str) -> Result<(), String> {
    let kept = keep_copy(dir, "torn", torn)?;
    eprintln!("dynalab: cut {} bytes {what} from {}; they are in {}", torn.len(), path.display(), kept.display());
    Ok(())
}

/// Writes `bytes` to a new file beside the log, named for what it is and when it was kept.
fn keep_copy(dir: &Path, what: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let millis = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    let path = dir.join(format!("writes.log.{what}-{millis}"));
    File::create(&path)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .map_err(|e| format!("cannot keep a copy in {}: {e}", path.display()))?;
    Ok(path)
}

/// Runs `records` on a new engine, each at its own time.
fn replay<'a>(records: impl Iterator<Item = &'a Record>, clock: &Arc<ReplayableClock>) -> Engine {
    let mut engine = Engine::new(clock.clone());
    for record in records {
        clock.replaying_at.store(record.at_millis.max(1), Ordering::SeqCst);
        match &record.entry {
            // A logged request ran once on exactly this state, so it runs the same way again.
            Entry::Request { operation, body } => {
                let _ = engine.execute(operation, body);
            }
            Entry::Expired { table, key } => {
                if let Ok(key) = serde_json::from_str::<Item>(key) {
                    engine.expire_item(table, &key);
                }
            }
        }
    }
    clock.replaying_at.store(0, Ordering::SeqCst);
    engine
}

/// `dynalab repair`: keeps a copy of a damaged log beside it, then replaces the log with a new
/// one holding what can be trusted: every whole append before the damage, a repeated record
/// (a copied block) kept once. Returns what it did, to print.
pub fn repair(dir: &Path) -> Result<String, String> {
    let _lock = lock(dir)?;
    let path = dir.join(LOG);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let format = earlier_formats::format_of(&bytes);
    if matches!(format, Format::Newer(_) | Format::Unknown) {
        // A header it cannot read is never taken for damage: the whole log would be discarded.
        return Err(earlier_formats::refusal(&path, &bytes, &format));
    }
    let (appends, good, ending, repeats) = if format != Format::Current {
        let earlier = earlier_formats::read(&bytes);
        let appends = earlier.records.into_iter().map(|record| vec![record]).collect();
        (appends, earlier.good, earlier.ending, 0)
    } else {
        let read = record::salvage(&bytes);
        (read.appends, read.good, read.ending, read.repeats_skipped)
    };
    let records: usize = appends.iter().map(Vec::len).sum();
    let why = match &ending {
        Ending::Clean if repeats == 0 => {
            return Ok(format!("{} is whole: {records} records; nothing to repair", path.display()))
        }
        Ending::Clean => "repeated records".to_string(),
        Ending::Torn => "an append that never got its end mark".to_string(),
        Ending::Damaged { at, reason } => format!("damage at byte {at} ({reason})"),
    };
    let copy = keep_copy(dir, "damaged", &bytes)?;
    let mut place = Place::new_log();
    let mut fresh = place.header();
    for append in &appends {
        place.encode_append(append, &mut fresh);
    }
    fresh.extend(place.end_mark());
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    write_new(&dir.join(COMPACTING), &fresh).map_err(fail)?;
    std::fs::rename(dir.join(COMPACTING), &path).map_err(fail)?;
    File::open(dir).and_then(|d| d.sync_all()).map_err(fail)?;
    let repeated = match repeats {
        0 => String::new(),
        n => format!(", dropped {n} repeated records"),
    };
    Ok(format!(
        "{}: {why}; kept the {records} records before byte {good}{repeated}, left out {} bytes; the whole damaged log is in {}",
        path.display(),
        bytes.len().saturating_sub(good),
        copy.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn put(n: u32) -> Entry {
        let item = json!({"id": {"S": format!("i{n}")}, "pad": {"S": "x".repeat(100)}});
        Entry::Request { operation: "PutItem".into(), body: json!({"TableName": "things", "Item": item}).to_string() }
    }

    fn create() -> Entry {
        Entry::Request {
            operation: "CreateTable".into(),
            body: json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
            .to_string(),
        }
    }

    fn count(engine: &mut Engine) -> u64 {
        let scan = engine.execute_value("Scan", &json!({"TableName": "things", "Select": "COUNT"})).expect("scan");
        scan["Count"].as_u64().unwrap_or(0)
    }

    #[test]
    fn a_failed_append_leaves_nothing_behind_and_later_appends_work() {
        let dir = tempdir("failed-append");
        let (mut log, _) = WriteLog::open(&dir).expect("open");
        log.append(1, vec![create(), put(1)]).expect("append");
        let size = log.len();
        log.fail_next_append(io::ErrorKind::StorageFull);
        assert!(log.append(1, vec![put(2)]).is_err());
        let on_disk = std::fs::metadata(dir.join(LOG)).expect("log").len();
        assert_eq!(on_disk, size + END_MARK as u64, "the partial append was cut back to the old end mark");
        let mut rebuilt = log.rebuild().expect("rebuild");
        assert_eq!(count(&mut rebuilt), 1, "the failed write is not in the rebuilt state");
        log.append(1, vec![put(3)]).expect("a later append");
        drop(log);
        let (_, mut engine) = WriteLog::open(&dir).expect("reopen");
        assert_eq!(count(&mut engine), 2, "i1 and i3");
    }

    #[test]
    fn compaction_keeps_the_state_and_shrinks_the_log() {
        let dir = tempdir("compact");
        let (mut log, _) = WriteLog::open(&dir).expect("open");
        log.append(1, vec![create()]).expect("create");
        for round in 0..10 {
            log.append(1, (0..50).map(|n| put(n + round)).collect()).expect("puts");
        }
        let mut engine = log.rebuild().expect("state");
        let before = log.len();
        log.compact(&engine).expect("compact");
        assert!(log.len() < before / 4, "{} → {}", before, log.len());
        log.append(1, vec![put(1000)]).expect("append after compaction");
        drop(log);
        let (_, mut reopened) = WriteLog::open(&dir).expect("reopen");
        assert_eq!(count(&mut reopened), count(&mut engine) + 1);
        assert!(!dir.join("writes.log.compacting").exists());
    }

    #[test]
    fn a_compaction_beside_the_server_keeps_what_was_written_while_it_ran() {
        let dir = tempdir("background");
        let (mut log, _) = WriteLog::open(&dir).expect("open");
        log.append(1, vec![create()]).expect("create");
        for round in 0..20 {
            log.append(1, (0..50).map(|n| put(n + round)).collect()).expect("puts");
        }
        let before = log.len();
        log.start_compaction();
        // Writes go on while the thread replays and writes the snapshot.
        for n in 1000..1010 {
            log.append(1, vec![put(n)]).expect("append during compaction");
        }
        log.wait_for_compaction();
        assert!(log.len() < before / 4, "{before} → {}", log.len());
        assert!(!dir.join(COMPACTING).exists());
        log.append(1, vec![put(2000)]).expect("append after");
        let mut state = log.rebuild().expect("state");
        drop(log);
        let (_, mut reopened) = WriteLog::open(&dir).expect("reopen");
        assert_eq!(count(&mut reopened), count(&mut state));
        assert_eq!(count(&mut reopened), 69 + 10 + 1, "i0..i68, i1000..i1009, i2000");
    }

    #[test]
    fn damage_refuses_and_repair_keeps_a_copy_then_cuts() {
        let dir = tempdir("repair");
        let (mut log, _) = WriteLog::open(&dir).expect("open");
        log.append(1, vec![create()]).expect("create");
        let cut_at = log.len();
        for n in 0..5 {
            log.append(1, vec![put(n)]).expect("put");
        }
        drop(log);
        let mut bytes = std::fs::read(dir.join(LOG)).expect("log");
        let whole = bytes.clone();
        bytes[cut_at as usize + 1] ^= 0xff;
        std::fs::write(dir.join(LOG), &bytes).expect("damage");
        let Err(refused) = WriteLog::open(&dir) else { panic!("a damaged log must not open") };
        assert!(refused.contains(&format!("damaged at byte {cut_at}")), "{refused}");
        assert_eq!(std::fs::read(dir.join(LOG)).expect("log"), bytes, "refusing changes nothing");
        let said = repair(&dir).expect("repair");
        assert!(said.contains("kept the 1 records"), "{said}");
        let copies: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("writes.log.damaged-"))
            .collect();
        assert_eq!(copies.len(), 1);
        assert_eq!(std::fs::read(copies[0].path()).expect("copy"), bytes);
        let (_, mut engine) = WriteLog::open(&dir).expect("opens after repair");
        assert_eq!(count(&mut engine), 0);
        assert_ne!(whole, bytes);
    }

    #[test]
    fn a_log_of_the_second_format_is_read_and_rewritten_in_this_one() {
        let dir = tempdir("second-format");
        std::fs::create_dir_all(&dir).expect("dir");
        let mut bytes = earlier_formats::SECOND_MAGIC.to_vec();
        for entry in [create(), put(1), put(2)] {
            let Entry::Request { operation, body } = entry else { unreachable!() };
            let payload = [[1u8].as_slice(), &5u64.to_le_bytes(), operation.as_bytes(), &[0], body.as_bytes()].concat();
            let length = (payload.len() as u32).to_le_bytes();
            bytes.extend(length);
            bytes.extend(crc32fast::hash(&length).to_le_bytes());
            bytes.extend(crc32fast::hash(&payload).to_le_bytes());
            bytes.extend(&payload);
        }
        std::fs::write(dir.join(LOG), &bytes).expect("write");
        let (mut log, mut engine) = WriteLog::open(&dir).expect("open");
        assert_eq!(count(&mut engine), 2);
        assert!(std::fs::read(dir.join(LOG)).expect("log").starts_with(record::MAGIC));
        log.append(1, vec![put(3)]).expect("append");
        drop(log);
        let (_, mut engine) = WriteLog::open(&dir).expect("reopen");
        assert_eq!(count(&mut engine), 3);
    }

    /// The data directory removed while serving, then a second server started on the same path:
    /// the first notices before acknowledging another write, and refuses every one after.
    #[test]
    fn a_data_directory_removed_while_serving_stops_every_acknowledgement() {
        let dir = tempdir("removed");
        let (mut log, _) = WriteLog::open(&dir).expect("open");
        log.append(1, vec![create()]).expect("create");
        std::fs::remove_dir_all(&dir).expect("removed");
        let refused = log.append(1, vec![put(1)]).expect_err("not acknowledged");
        assert!(refused.to_string().contains("was removed or replaced while serving"), "{refused}");
        let (_, _) = WriteLog::open(&dir).expect("a second server starts on the same path");
        assert!(log.append(1, vec![put(2)]).is_err(), "still refused with the new log at the path");
        assert!(log.rebuild().is_err(), "the new log is not this server's state");
    }

    /// A log whose first byte is flipped, or that a newer version wrote: the start and `repair`
    /// both refuse naming the file, the bytes and the formats read, and change nothing.
    #[test]
    fn a_header_this_build_does_not_recognise_is_refused_never_cut() {
        for (name, damage) in [("flipped", None), ("newer", Some(b"dynalab-log/9\n\0\0".as_slice()))] {
            let dir = tempdir(&format!("header-{name}"));
            let (mut log, _) = WriteLog::open(&dir).expect("open");
            log.append(1, vec![create()]).expect("create");
            for n in 0..20 {
                log.append(1, vec![put(n)]).expect("put");
            }
            drop(log);
            let mut bytes = std::fs::read(dir.join(LOG)).expect("log");
            match damage {
                Some(magic) => bytes[..magic.len()].copy_from_slice(magic),
                None => bytes[0] ^= 0x01,
            }
            std::fs::write(dir.join(LOG), &bytes).expect("damage");
            let Err(refused) = WriteLog::open(&dir) else { panic!("{name}: an unknown header must not open") };
            assert!(refused.contains(&dir.join(LOG).display().to_string()), "{refused}");
            assert!(refused.contains("this build reads dynalab-log/3"), "{refused}");
            if damage.is_some() {
                assert!(refused.contains("a log written by a newer version of dynalab (dynalab-log/9)"), "{refused}");
            } else {
                assert!(refused.contains("`eynalab-log/3"), "the bytes found: {refused}");
            }
            let refused_repair = repair(&dir).expect_err("repair refuses too");
            assert!(refused_repair.contains("Nothing was changed"), "{refused_repair}");
            assert_eq!(std::fs::read(dir.join(LOG)).expect("log"), bytes, "{name}: the log is untouched");
            let beside: Vec<String> = std::fs::read_dir(&dir)
                .expect("dir")
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("writes.log."))
                .collect();
            assert!(beside.is_empty(), "{name}: nothing cut or copied aside: {beside:?}");
        }
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dynalab-log-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }
}
