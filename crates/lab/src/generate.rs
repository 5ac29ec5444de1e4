//! Generated fixtures for the orders example: N users × M orders on average, with a chosen skew so
//! a few users can own most orders (a hot partition key to see). Deterministic for a seed.

use crate::examples::ORDERS_TABLE;
use serde_json::{json, Value};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrdersFixture {
    pub users: usize,
    pub orders_per_user: usize,
    /// Zipf exponent of orders over users: 0 spreads them evenly, 1 or more piles them on the first users.
    pub skew: f64,
    pub seed: u64,
}

impl OrdersFixture {
    /// How many items [`OrdersFixture::items`] makes: a profile per user, an order and a line item per order.
    pub fn item_count(&self) -> usize {
        self.users.saturating_add(self.orders().saturating_mul(2))
    }

    /// How many orders in all; saturating, since the counts come from a form.
    fn orders(&self) -> usize {
        self.users.saturating_mul(self.orders_per_user)
    }

    /// The items, in DynamoDB JSON, for the `orders` table.
    pub fn items(&self) -> Vec<Value> {
        self.stream().collect()
    }

    /// The items one at a time, so a large fixture never has to exist whole before it is written.
    pub fn stream(&self) -> impl Iterator<Item = Value> {
        self.records().map(|r| r.to_value())
    }

    /// PutItem requests for the items, as request JSON text (written directly: a generation of
    /// a million items spends its time in the engine, not in building JSON trees to print).
    pub fn requests(&self) -> impl Iterator<Item = (&'static str, String)> {
        self.records().map(|r| ("PutItem", r.to_request()))
    }

    fn records(&self) -> Records {
        // Cumulative Zipf weights, then one draw per order.
        let mut cumulative = Vec::with_capacity(self.users);
        let mut sum = 0.0;
        for u in 0..self.users {
            sum += 1.0 / ((u + 1) as f64).powf(self.skew);
            cumulative.push(sum);
        }
        Records { fixture: *self, cumulative, sum, random: SplitMix(self.seed), next: 0, line: None }
    }
}

/// One generated item, before it is written out.
#[derive(Debug, Clone, PartialEq)]
enum Record {
    Profile { user: usize },
    Order { user: usize, order: usize, date: String, total: u64, warehouse: u64, open: bool },
    Line { order: usize, sku: u64, qty: u64, price: u64 },
}

impl Record {
    fn to_value(&self) -> Value {
        match self {
            Record::Profile { user: u } => json!({"pk": {"S": format!("USER#u{u}")}, "sk": {"S": "PROFILE"},
                "email": {"S": format!("u{u}@example.com")}, "name": {"S": format!("User {u}")}}),
            Record::Order { user, order: o, date, total, warehouse, open } => {
                let mut order = json!({"pk": {"S": format!("USER#u{user}")}, "sk": {"S": format!("ORDER#{date}#o{o}")},
                    "status": {"S": if *open { "OPEN" } else { "SHIPPED" }}, "total": {"N": total.to_string()},
                    "warehouse": {"S": format!("w{warehouse}")}});
                if *open {
                    order["open_wh"] = json!({"S": format!("w{warehouse}")});
                    order["open_at"] = json!({"S": format!("{date}#o{o}")});
                }
                order
            }
            Record::Line { order: o, sku, qty, price } => {
                json!({"pk": {"S": format!("ORDER#o{o}")}, "sk": {"S": format!("ITEM#sku{sku}")},
                "qty": {"N": qty.to_string()}, "price": {"N": price.to_string()}})
            }
        }
    }

    /// The PutItem request, as text: the same item as [`Record::to_value`] (a test holds them
    /// equal). Every value is digits and fixed ASCII, so nothing needs escaping.
    fn to_request(&self) -> String {
        let item = match self {
            Record::Profile { user: u } => format!(
                r#"{{"pk":{{"S":"USER#u{u}"}},"sk":{{"S":"PROFILE"}},"email":{{"S":"u{u}@example.com"}},"name":{{"S":"User {u}"}}}}"#
            ),
            Record::Order { user, order: o, date, total, warehouse, open } => {
                let status = if *open { "OPEN" } else { "SHIPPED" };
                let index = if *open {
                    format!(r#","open_wh":{{"S":"w{warehouse}"}},"open_at":{{"S":"{date}#o{o}"}}"#)
                } else {
                    String::new()
                };
                format!(
                    r#"{{"pk":{{"S":"USER#u{user}"}},"sk":{{"S":"ORDER#{date}#o{o}"}},"status":{{"S":"{status}"}},"total":{{"N":"{total}"}},"warehouse":{{"S":"w{warehouse}"}}{index}}}"#
                )
            }
            Record::Line { order: o, sku, qty, price } => format!(
                r#"{{"pk":{{"S":"ORDER#o{o}"}},"sk":{{"S":"ITEM#sku{sku}"}},"qty":{{"N":"{qty}"}},"price":{{"N":"{price}"}}}}"#
            ),
        };
        format!(r#"{{"TableName":"{ORDERS_TABLE}","Item":{item}}}"#)
    }
}

/// See [`OrdersFixture::stream`]: profiles first, then each order followed by its line item.
struct Records {
    fixture: OrdersFixture,
    cumulative: Vec<f64>,
    sum: f64,
    random: SplitMix,
    next: usize,
    line: Option<Record>,
}

impl Iterator for Records {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if let Some(line) = self.line.take() {
            return Some(line);
        }
        let users = self.fixture.users;
        if self.next < users {
            let user = self.next;
            self.next += 1;
            return Some(Record::Profile { user });
        }
        let o = self.next - users;
        if o >= self.fixture.orders() {
            return None;
        }
        self.next += 1;
        let random = &mut self.random;
        let target = random.unit() * self.sum;
        let user = self.cumulative.partition_point(|c| *c < target).min(users - 1);
        let day = 1 + random.below(28);
        let month = 1 + random.below(12);
        let date = format!("2026-{month:02}-{day:02}");
        let qty = 1 + random.below(5);
        let price = 1 + random.below(50);
        let warehouse = 1 + random.below(4);
        let open = random.below(10) == 0;
        self.line = Some(Record::Line { order: o, sku: random.below(500), qty, price });
        Some(Record::Order { user, order: o, date, total: qty * price, warehouse, open })
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn orders_per_user(fixture: &OrdersFixture) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for item in fixture.items() {
            if item["sk"]["S"].as_str().is_some_and(|s| s.starts_with("ORDER#")) {
                *counts.entry(item["pk"]["S"].as_str().unwrap_or_default().to_string()).or_default() += 1;
            }
        }
        counts
    }

    #[test]
    fn the_requests_write_exactly_the_items() {
        for skew in [0.0, 1.0] {
            let fixture = OrdersFixture { users: 40, orders_per_user: 30, skew, seed: 3 };
            let requests: Vec<Value> =
                fixture.requests().map(|(_, text)| serde_json::from_str(&text).expect("valid JSON")).collect();
            let expected: Vec<Value> =
                fixture.items().into_iter().map(|item| json!({"TableName": ORDERS_TABLE, "Item": item})).collect();
            assert_eq!(requests, expected);
            assert!(requests.iter().any(|r| r["Item"].get("open_wh").is_some()), "some orders are open");
        }
    }

    #[test]
    fn absurd_counts_saturate_instead_of_overflowing() {
        let fixture = OrdersFixture { users: usize::MAX, orders_per_user: usize::MAX, skew: 0.0, seed: 1 };
        assert_eq!(fixture.item_count(), usize::MAX);
    }

    #[test]
    fn counts_are_exact_and_the_seed_repeats() {
        let fixture = OrdersFixture { users: 50, orders_per_user: 4, skew: 0.0, seed: 7 };
        assert_eq!(fixture.items().len(), fixture.item_count());
        assert_eq!(fixture.item_count(), 50 + 400);
        assert_eq!(fixture.items(), fixture.items());
        assert_ne!(fixture.items(), OrdersFixture { seed: 8, ..fixture }.items());
    }

    #[test]
    fn skew_piles_orders_on_the_first_users() {
        let even = orders_per_user(&OrdersFixture { users: 100, orders_per_user: 20, skew: 0.0, seed: 1 });
        let skewed = orders_per_user(&OrdersFixture { users: 100, orders_per_user: 20, skew: 1.2, seed: 1 });
        let hottest = |counts: &BTreeMap<String, usize>| counts.values().copied().max().unwrap_or(0);
        assert!(hottest(&even) < 45, "even: {}", hottest(&even));
        assert!(hottest(&skewed) > 300, "skewed: {}", hottest(&skewed));
        assert_eq!(skewed.get("USER#u0").copied(), Some(hottest(&skewed)));
    }
}
