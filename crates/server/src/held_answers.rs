//! The memory that answers hold until their clients have taken them. An answer is built whole
//! (a BatchGetItem's can be 16 MB) and its bytes stay in memory until the socket has taken the
//! last of them; a client that asks and does not read would keep them for as long as it keeps the
//! connection. So the bytes of every answer not yet sent are counted, and while they are over the
//! limit a read whose answer is large is refused with a retryable 503 instead of being held too
//! (writes are always answered: they are applied, and their answers are small). The write timeout
//! (`Limits::write_timeout`) closes the connections of clients that stopped reading, which gives
//! their bytes back.

use bytes::Bytes;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Answers up to this size are always held: a connection holds at most one, so their total is
/// bounded by the connection cap (768 × 64 KiB = 48 MiB).
pub const SMALL_ANSWER_BYTES: usize = 64 * 1024;

/// The bytes of answers built and not yet taken by their clients, on every thread of one server.
#[derive(Debug)]
pub struct HeldAnswers {
    held: AtomicUsize,
    limit: usize,
}

impl HeldAnswers {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self { held: AtomicUsize::new(0), limit })
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Whether an answer of `bytes` to a read may be held now.
    pub fn has_room_for(&self, bytes: usize) -> bool {
        bytes <= SMALL_ANSWER_BYTES || self.held() + bytes <= self.limit
    }

    /// `body` as the bytes of a response, counted until the last reference to them is dropped
    /// (hyper drops them once the socket has taken them, or when the connection closes).
    pub fn hold(self: &Arc<Self>, body: Vec<u8>) -> Bytes {
        self.held.fetch_add(body.len(), Ordering::Relaxed);
        Bytes::from_owner(Held { body, answers: self.clone() })
    }
}

struct Held {
    body: Vec<u8>,
    answers: Arc<HeldAnswers>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.body
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.answers.held.fetch_sub(self.body.len(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_until_the_last_reference_is_dropped() {
        let answers = HeldAnswers::new(300 * 1024);
        let first = answers.hold(vec![b'x'; 150 * 1024]);
        let shared = first.slice(10..20);
        assert_eq!(answers.held(), 150 * 1024);
        assert!(!answers.has_room_for(150 * 1024 + 1), "over the limit");
        assert!(answers.has_room_for(150 * 1024), "within it");
        let _more = answers.hold(vec![b'y'; 150 * 1024]);
        assert!(answers.has_room_for(SMALL_ANSWER_BYTES), "a small answer always has room");
        assert!(!answers.has_room_for(SMALL_ANSWER_BYTES + 1));
        drop(first);
        assert_eq!(answers.held(), 300 * 1024, "a slice still holds the bytes");
        assert_eq!(&shared[..], &[b'x'; 10]);
        drop(shared);
        assert_eq!(answers.held(), 150 * 1024);
    }
}
