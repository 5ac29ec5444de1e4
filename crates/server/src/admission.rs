//! Who gets one of the server's connections. Open connections are capped (`--max-connections`);
//! when the server is full, a new client is not refused while someone holds a connection doing
//! nothing (no request in flight: idle between requests, or still sending a request's headers).
//! Which one gives up its place, in order:
//!
//! 1. a connection that never completed a request — of the peer holding the most of those, its
//!    longest-idle: a flood of idle or half-open connections goes first, from one address or from
//!    many;
//! 2. else the connection idle the longest: a connection a client is using is rarely idle long, so
//!    a well-behaved client's keep-alive pool is not taken for the busiest address's.
//!
//! Only when every open connection has a request in flight is the new client answered 503.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use tokio::sync::Notify;

/// The open connections of every thread of one server.
#[derive(Clone)]
pub struct Admission {
    registry: Arc<Mutex<Registry>>,
    started: Instant,
}

impl Default for Admission {
    fn default() -> Self {
        Self { registry: Arc::default(), started: Instant::now() }
    }
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    open: HashMap<u64, Held>,
}

struct Held {
    peer: IpAddr,
    activity: Arc<Activity>,
}

/// What the server knows of one open connection while it serves it.
pub struct Activity {
    started: Instant,
    /// Requests whose headers have arrived and whose answer's last byte the socket has not yet
    /// taken: an answer still being written is never idle.
    in_flight: AtomicUsize,
    /// Of those, answers whose body hyper has taken whole but may still hold, unsent: they end at
    /// the socket's next completed flush.
    unflushed: AtomicUsize,
    /// Milliseconds after the server started (plus one, so 0 means none) since when the socket
    /// has taken none of an answer's bytes: its client stopped reading.
    write_stalled_since: AtomicU64,
    /// Set when the connection is closed for a stalled write: nothing more is sent on it.
    abandoned: std::sync::atomic::AtomicBool,
    /// Milliseconds after the server started when the connection last had no request in flight.
    idle_since: AtomicU64,
    /// Requests answered on it: a connection that never completed one goes first when full.
    answered: AtomicU64,
    /// Notified when the connection is asked to give up its place.
    evicted: Notify,
}

impl Activity {
    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A request's headers arrived: the connection is busy until the guard is dropped.
    pub fn request(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        Busy(self.clone())
    }

    /// Whether a request is being answered.
    pub fn is_busy(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) > 0
    }

    /// The socket took bytes of a write (`stalled` false), or took none for now (true).
    pub fn wrote(&self, stalled: bool) {
        if !stalled {
            self.write_stalled_since.store(0, Ordering::Relaxed);
        } else if self.write_stalled_since.load(Ordering::Relaxed) == 0 {
            self.write_stalled_since.store(self.now() + 1, Ordering::Relaxed);
        }
    }

    /// The socket has taken everything written to it: answers whose body had ended are sent.
    pub fn flushed(&self) {
        if self.unflushed.load(Ordering::SeqCst) == 0 {
            return;
        }
        let sent = self.unflushed.swap(0, Ordering::SeqCst);
        self.idle_since.store(self.now(), Ordering::SeqCst);
        self.answered.fetch_add(sent as u64, Ordering::SeqCst);
        self.in_flight.fetch_sub(sent, Ordering::SeqCst);
    }

    /// Milliseconds since the socket last took bytes of a write it was given, if it is stuck.
    fn write_stalled_for(&self, now: u64) -> Option<u64> {
        let since = self.write_stalled_since.load(Ordering::Relaxed);
        (since != 0).then(|| now.saturating_sub(since - 1))
    }

    /// Whether the connection was closed because its client stopped reading.
    pub fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::SeqCst)
    }

    /// Resolves once the connection has been asked to give up its place.
    pub async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

/// One request being answered on a connection.
pub struct Busy(Arc<Activity>);

impl Drop for Busy {
    /// The answer's body is taken whole (or the request ended without one): the request stays in
    /// flight until the socket has taken the last byte ([`Activity::flushed`]).
    fn drop(&mut self) {
        self.0.unflushed.fetch_add(1, Ordering::SeqCst);
    }
}

/// A place among the open connections, given up when dropped.
pub struct Place {
    registry: Arc<Mutex<Registry>>,
    id: u64,
    pub activity: Arc<Activity>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner).open.remove(&self.id);
    }
}

impl Admission {
    /// A place for a new connection from `peer` among at most `max`, pushing out the longest-idle
    /// connection of the peer holding the most when full; `None` when every place is busy.
    pub fn admit(&self, peer: IpAddr, max: usize) -> Option<Place> {
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        if registry.open.len() >= max {
            let victim = registry.victim()?;
            if let Some(held) = registry.open.remove(&victim) {
                held.activity.evicted.notify_one();
            }
        }
        let activity = Arc::new(Activity {
            started: self.started,
            in_flight: AtomicUsize::new(0),
            unflushed: AtomicUsize::new(0),
            write_stalled_since: AtomicU64::new(0),
            abandoned: std::sync::atomic::AtomicBool::new(false),
            idle_since: AtomicU64::new(0),
            answered: AtomicU64::new(0),
            evicted: Notify::new(),
        });
        activity.idle_since.store(activity.now(), Ordering::SeqCst);
        let id = registry.next_id;
        registry.next_id += 1;
        registry.open.insert(id, Held { peer, activity: activity.clone() });
        Some(Place { registry: self.registry.clone(), id, activity })
    }

    /// Asks every connection idle (no request in flight) for longer than `idle` to close: idle
    /// keep-alive connections, and clients that take longer than that to send a request's headers.
    /// A connection whose answer the socket has taken nothing of for longer than `write` is closed
    /// at once, its answer abandoned. One sweep every so often replaces timers armed and disarmed
    /// on every request.
    pub fn close_idle(&self, idle: std::time::Duration, write: std::time::Duration) {
        let millis = |limit: std::time::Duration| u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        let (idle, write) = (millis(idle), millis(write));
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        registry.open.retain(|_, held| {
            let activity = &held.activity;
            let idle_for = now.saturating_sub(activity.idle_since.load(Ordering::SeqCst));
            let stalled = activity.write_stalled_for(now).is_some_and(|stalled| stalled > write);
            if stalled {
                activity.abandoned.store(true, Ordering::SeqCst);
            }
            let overdue = stalled || (!activity.is_busy() && idle_for > idle);
            if overdue {
                activity.evicted.notify_one();
            }
            !overdue
        });
    }

    /// Connections open now (an evicted one stops counting when asked to leave).
    pub fn open(&self) -> usize {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner).open.len()
    }
}

impl Registry {
    /// The connection to push out (see the module's order), or `None` when every one is busy.
    fn victim(&self) -> Option<u64> {
        let idle = || self.open.iter().filter(|(_, held)| !held.activity.is_busy());
        let since = |held: &Held| held.activity.idle_since.load(Ordering::SeqCst);
        // 1. Never answered a request: the peer holding the most of those, its longest-idle.
        let mut unused: HashMap<IpAddr, (usize, (u64, u64))> = HashMap::new();
        for (id, held) in idle().filter(|(_, held)| held.activity.answered.load(Ordering::SeqCst) == 0) {
            let entry = unused.entry(held.peer).or_insert((0, (u64::MAX, u64::MAX)));
            entry.0 += 1;
            // Ties (the same millisecond) go to the connection opened first.
            entry.1 = entry.1.min((since(held), *id));
        }
        if let Some((_, (_, id))) =
            unused.into_values().max_by_key(|(count, (at, id))| (*count, std::cmp::Reverse((*at, *id))))
        {
            return Some(id);
        }
        // 2. The connection idle the longest.
        idle().map(|(id, held)| (since(held), *id)).min().map(|(_, id)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[test]
    fn places_are_given_up_when_dropped() {
        let admission = Admission::default();
        let first = admission.admit(ip(1), 2).expect("first");
        let _second = admission.admit(ip(1), 2).expect("second");
        assert_eq!(admission.open(), 2);
        drop(first);
        assert_eq!(admission.open(), 1);
    }

    #[test]
    fn when_full_the_longest_idle_connection_of_the_largest_peer_makes_room() {
        let admission = Admission::default();
        let other = admission.admit(ip(2), 4).expect("other peer");
        let flood: Vec<Place> = (0..3).map(|_| admission.admit(ip(1), 4).expect("flood")).collect();
        // The flood's first connection is busy, so its second (the longest idle) goes.
        let _busy = flood[0].activity.request();
        let newcomer = admission.admit(ip(3), 4).expect("room is made");
        assert_eq!(admission.open(), 4);
        let evicted: Vec<bool> = flood
            .iter()
            .map(|place| {
                let registry = admission.registry.lock().expect("lock");
                !registry.open.contains_key(&place.id)
            })
            .collect();
        assert_eq!(evicted, [false, true, false]);
        assert!(
            admission.registry.lock().expect("lock").open.contains_key(&other.id),
            "the smaller peer keeps its place"
        );
        drop(newcomer);
    }

    /// The attack: one idle connection from each of many addresses, beside a client using its
    /// keep-alive pool from one address. Newcomers push out the flood, never the client's.
    #[test]
    fn a_flood_from_many_addresses_never_pushes_out_a_client_using_its_connections() {
        let admission = Admission::default();
        let client: Vec<Place> = (0..3).map(|_| admission.admit(ip(200), 8).expect("client")).collect();
        for place in &client {
            drop(place.activity.request());
            place.activity.flushed();
        }
        let flood: Vec<Place> = (1..=5).map(|n| admission.admit(ip(n), 8).expect("flood")).collect();
        for n in 6..=20 {
            admission.admit(ip(n), 8).map(std::mem::forget).expect("room is made");
        }
        let open = |place: &Place| admission.registry.lock().expect("lock").open.contains_key(&place.id);
        assert!(client.iter().all(open), "the client keeps every connection it used");
        assert!(flood.iter().all(|p| !open(p)), "the flood's connections made room");
    }

    #[test]
    fn connections_idle_past_the_limit_are_asked_to_close_and_busy_ones_are_not() {
        let admission = Admission::default();
        let idle = admission.admit(ip(1), 4).expect("idle");
        let busy = admission.admit(ip(1), 4).expect("busy");
        let _request = busy.activity.request();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let fresh = admission.admit(ip(1), 4).expect("fresh");
        admission.close_idle(std::time::Duration::from_millis(20), std::time::Duration::from_secs(60));
        let open = |place: &Place| admission.registry.lock().expect("lock").open.contains_key(&place.id);
        assert_eq!([open(&idle), open(&busy), open(&fresh)], [false, true, true]);
    }

    #[test]
    fn when_every_connection_is_busy_a_newcomer_is_refused() {
        let admission = Admission::default();
        let places: Vec<Place> = (0..2).map(|_| admission.admit(ip(1), 2).expect("admit")).collect();
        let busy: Vec<Busy> = places.iter().map(|place| place.activity.request()).collect();
        assert!(admission.admit(ip(2), 2).is_none());
        drop(busy);
        assert!(admission.admit(ip(2), 2).is_none(), "answers not yet sent keep their connections");
        places[0].activity.flushed();
        assert!(admission.admit(ip(2), 2).is_some(), "once sent, one makes room");
    }

    #[test]
    fn an_answer_still_being_written_is_not_idle_and_a_stalled_one_is_abandoned_after_the_write_timeout() {
        let admission = Admission::default();
        let writing = admission.admit(ip(1), 4).expect("writing");
        let stalled = admission.admit(ip(2), 4).expect("stalled");
        for place in [&writing, &stalled] {
            drop(place.activity.request());
            place.activity.wrote(true);
        }
        std::thread::sleep(std::time::Duration::from_millis(40));
        writing.activity.wrote(false);
        let millis = std::time::Duration::from_millis;
        admission.close_idle(millis(10), millis(30));
        let open = |place: &Place| admission.registry.lock().expect("lock").open.contains_key(&place.id);
        assert!(open(&writing) && writing.activity.is_busy(), "an answer making progress is kept");
        assert!(!open(&stalled) && stalled.activity.is_abandoned(), "a stalled answer is abandoned");
        writing.activity.flushed();
        std::thread::sleep(std::time::Duration::from_millis(20));
        admission.close_idle(millis(10), millis(30));
        assert!(!open(&writing) && !writing.activity.is_abandoned(), "once sent, it idles out as any other");
    }
}
