//! DynamoDB Streams: a table's change log. Every write that changes an item appends one record
//! (INSERT, MODIFY or REMOVE) to the table's enabled stream, in commit order, from the one write
//! path (`Table::write`); writes that change nothing append none. A stream has one shard here,
//! sequence numbers count up from 1, and records older than 24 hours of the injected clock are
//! trimmed. Shapes and messages: fact sheet §8 and DynamoDB Local, measured 2026-12-02.

use crate::value::{item_size, item_to_json, Item};
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;

pub const RETENTION_MS: u64 = 24 * 3600 * 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewType {
    KeysOnly,
    NewImage,
    OldImage,
    NewAndOldImages,
}

impl ViewType {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "KEYS_ONLY" => Some(Self::KeysOnly),
            "NEW_IMAGE" => Some(Self::NewImage),
            "OLD_IMAGE" => Some(Self::OldImage),
            "NEW_AND_OLD_IMAGES" => Some(Self::NewAndOldImages),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::KeysOnly => "KEYS_ONLY",
            Self::NewImage => "NEW_IMAGE",
            Self::OldImage => "OLD_IMAGE",
            Self::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }
}

/// Who made a change: a caller, or DynamoDB's TTL process (shown on the REMOVE record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Request,
    TimeToLive,
}

/// One record, stored with what its JSON needs.
#[derive(Debug, Clone)]
pub struct Record {
    pub sequence: u64,
    pub created_millis: u64,
    pub event: &'static str,
    pub keys: Item,
    pub new_image: Option<Item>,
    pub old_image: Option<Item>,
    pub origin: Origin,
}

/// A stream of one table, enabled or (after UpdateTable turned it off) kept readable for 24 hours.
#[derive(Debug, Clone)]
pub struct Stream {
    pub table: String,
    pub label: String,
    pub view_type: ViewType,
    pub enabled: bool,
    pub created_millis: u64,
    pub records: VecDeque<Record>,
    pub next_sequence: u64,
}

impl Stream {
    pub fn new(table: &str, view_type: ViewType, now_millis: u64) -> Self {
        Self {
            table: table.to_string(),
            label: label(now_millis),
            view_type,
            enabled: true,
            created_millis: now_millis,
            records: VecDeque::new(),
            next_sequence: 1,
        }
    }

    pub fn arn(&self) -> String {
        format!("arn:aws:dynamodb:{}:{}:table/{}/stream/{}", crate::REGION, crate::ACCOUNT_ID, self.table, self.label)
    }

    /// The one shard's id, stable for the stream.
    pub fn shard_id(&self) -> String {
        format!(
            "shardId-{:020}-{:08x}",
            self.created_millis,
            crate::value::KeyValue::S(self.label.clone()).stable_hash() as u32
        )
    }

    /// Appends the record for a write, if it changed anything. Time is stamped by the engine
    /// after the request (`created_millis` 0 until then).
    pub fn capture(&mut self, keys: Item, old: Option<&Item>, new: Option<&Item>, origin: Origin) {
        let event = match (old, new) {
            (None, Some(_)) => "INSERT",
            (Some(o), Some(n)) if !crate::expression::eval::same_item(o, n) => "MODIFY",
            (Some(_), None) => "REMOVE",
            _ => return,
        };
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.records.push_back(Record {
            sequence,
            created_millis: 0,
            event,
            keys,
            new_image: new.cloned(),
            old_image: old.cloned(),
            origin,
        });
    }

    /// Gives records written during the last request their time, and drops those past retention.
    /// Whether [`Stream::stamp`] would change anything (a shared table is copied only then).
    pub fn needs_stamp(&self, now_millis: u64) -> bool {
        self.records.back().is_some_and(|r| r.created_millis == 0)
            || self.records.front().is_some_and(|r| r.created_millis.saturating_add(RETENTION_MS) < now_millis)
    }

    pub fn stamp(&mut self, now_millis: u64) {
        for record in self.records.iter_mut().rev() {
            if record.created_millis != 0 {
                break;
            }
            record.created_millis = now_millis;
        }
        while self.records.front().is_some_and(|r| r.created_millis.saturating_add(RETENTION_MS) < now_millis) {
            self.records.pop_front();
        }
    }

    /// The record as GetRecords returns it, images per the stream's view type.
    pub fn record_json(&self, record: &Record) -> Value {
        let (new, old) = match self.view_type {
            ViewType::KeysOnly => (None, None),
            ViewType::NewImage => (record.new_image.as_ref(), None),
            ViewType::OldImage => (None, record.old_image.as_ref()),
            ViewType::NewAndOldImages => (record.new_image.as_ref(), record.old_image.as_ref()),
        };
        let size = item_size(&record.keys) + new.map_or(0, item_size) + old.map_or(0, item_size);
        let mut dynamodb = serde_json::json!({
            // Whole seconds, as DynamoDB reports it.
            "ApproximateCreationDateTime": (record.created_millis / 1000) as f64,
            "Keys": item_to_json(&record.keys),
        });
        if let Some(new) = new {
            dynamodb["NewImage"] = item_to_json(new);
        }
        if let Some(old) = old {
            dynamodb["OldImage"] = item_to_json(old);
        }
        dynamodb["SequenceNumber"] = Value::String(format!("{:021}", record.sequence));
        dynamodb["SizeBytes"] = Value::from(size);
        dynamodb["StreamViewType"] = Value::String(self.view_type.name().to_string());
        let mut json = serde_json::json!({
            "eventID": event_id(&self.label, record.sequence),
            "eventName": record.event,
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": crate::REGION,
            "dynamodb": dynamodb,
        });
        if record.origin == Origin::TimeToLive {
            json["userIdentity"] = serde_json::json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"});
        }
        json
    }
}

/// A stream label: the creation time, `2026-12-02T22:17:39.340`.
pub fn label(millis: u64) -> String {
    let t = crate::clock::Utc::of_millis(millis);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
        t.year, t.month, t.day, t.hour, t.minute, t.second, t.millisecond
    )
}

/// A UUID-shaped id, the same for the same record (the engine has no randomness of its own).
fn event_id(label: &str, sequence: u64) -> String {
    let a = crate::value::KeyValue::S(format!("{label}#{sequence}")).stable_hash();
    let b = crate::value::KeyValue::S(format!("{sequence}#{label}")).stable_hash();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        (b >> 48) & 0x3fff | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

/// What DescribeStream's shard shows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ShardDescription {
    pub shard_id: String,
    pub sequence_number_range: SequenceRange,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SequenceRange {
    pub starting_sequence_number: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_utc_timestamps_with_milliseconds() {
        assert_eq!(label(1_796_249_859_340), "2026-12-02T22:17:39.340");
        assert_eq!(label(0), "1970-01-01T00:00:00.000");
    }

    #[test]
    fn event_ids_are_uuid_shaped_and_distinct() {
        let a = event_id("x", 1);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        assert_ne!(a, event_id("x", 2));
    }
}
