//! The examples gallery: a table design with its fixture and the requests that exercise it.

use serde_json::{json, Value};

/// One example: what sets it up, and its access patterns as ready-to-run requests.
#[derive(Debug, Clone)]
pub struct Example {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Run in order on load: tables, then items.
    pub setup: Vec<(&'static str, Value)>,
    pub requests: Vec<SavedRequest>,
}

/// An access pattern as a request, with what it shows.
#[derive(Debug, Clone)]
pub struct SavedRequest {
    pub title: &'static str,
    pub operation: &'static str,
    pub request: Value,
}

/// Every example in the gallery.
pub fn gallery() -> Vec<Example> {
    vec![orders_service()]
}

/// The example named `id`.
pub fn example(id: &str) -> Option<Example> {
    gallery().into_iter().find(|e| e.id == id)
}

pub const ORDERS_TABLE: &str = "orders";

/// The `orders` table: users and their orders (newest first) in one item collection, each order's
/// line items in its own, stock per SKU, a unique-email guard item, and a sparse GSI holding only
/// open orders per warehouse.
pub fn orders_table() -> Value {
    json!({
        "TableName": ORDERS_TABLE,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "open_wh", "AttributeType": "S"}, {"AttributeName": "open_at", "AttributeType": "S"}
        ],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "open_orders",
            "KeySchema": [{"AttributeName": "open_wh", "KeyType": "HASH"}, {"AttributeName": "open_at", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}
        }]
    })
}

/// Puts a new user and the guard item that makes the email unique, in one transaction.
pub fn sign_up(user: &str, email: &str) -> Value {
    json!({"TransactItems": [
        {"Put": {"TableName": ORDERS_TABLE, "Item": {"pk": {"S": format!("USER#{user}")}, "sk": {"S": "PROFILE"},
            "email": {"S": email}, "name": {"S": user}}, "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": ORDERS_TABLE, "Item": {"pk": {"S": format!("EMAIL#{email}")}, "sk": {"S": "EMAIL"},
            "user": {"S": user}}, "ConditionExpression": "attribute_not_exists(pk)"}}
    ], "ReturnConsumedCapacity": "INDEXES"})
}

/// Places an order: takes the stock (only if there is enough), writes the order into the user's
/// collection (and the open-orders index) and its line item into the order's collection.
pub fn place_order(user: &str, order: &str, date: &str, warehouse: &str, sku: &str, qty: u32, price: u32) -> Value {
    json!({"TransactItems": [
        {"Update": {"TableName": ORDERS_TABLE, "Key": {"pk": {"S": format!("SKU#{sku}")}, "sk": {"S": "STOCK"}},
            "UpdateExpression": "SET qty = qty - :q", "ConditionExpression": "qty >= :q",
            "ExpressionAttributeValues": {":q": {"N": qty.to_string()}}}},
        {"Put": {"TableName": ORDERS_TABLE, "Item": {"pk": {"S": format!("USER#{user}")}, "sk": {"S": format!("ORDER#{date}#{order}")},
            "status": {"S": "OPEN"}, "total": {"N": (qty * price).to_string()}, "warehouse": {"S": warehouse},
            "open_wh": {"S": warehouse}, "open_at": {"S": format!("{date}#{order}")}},
            "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": ORDERS_TABLE, "Item": {"pk": {"S": format!("ORDER#{order}")}, "sk": {"S": format!("ITEM#{sku}")},
            "qty": {"N": qty.to_string()}, "price": {"N": price.to_string()}}}}
    ], "ReturnConsumedCapacity": "INDEXES"})
}

fn stock(sku: &str, qty: u32) -> Value {
    json!({"TableName": ORDERS_TABLE, "Item": {"pk": {"S": format!("SKU#{sku}")}, "sk": {"S": "STOCK"}, "qty": {"N": qty.to_string()}}})
}

fn orders_service() -> Example {
    let mut setup = vec![("CreateTable", orders_table())];
    setup.extend([("PutItem", stock("pen", 100)), ("PutItem", stock("ink", 5)), ("PutItem", stock("pad", 40))]);
    for (user, email) in [("ada", "ada@example.com"), ("grace", "grace@example.com")] {
        setup.push(("TransactWriteItems", sign_up(user, email)));
    }
    let orders = [
        ("ada", "o1", "2026-11-28", "w1", "pen", 3, 2),
        ("ada", "o2", "2026-11-30", "w1", "pad", 1, 4),
        ("ada", "o3", "2026-12-01", "w2", "ink", 2, 7),
        ("grace", "o4", "2026-12-01", "w1", "pen", 10, 2),
        ("ada", "o5", "2026-12-02", "w1", "pen", 1, 2),
    ];
    for (user, order, date, warehouse, sku, qty, price) in orders {
        setup.push(("TransactWriteItems", place_order(user, order, date, warehouse, sku, qty, price)));
    }
    setup.push((
        "UpdateItem",
        json!({"TableName": ORDERS_TABLE, "Key": {"pk": {"S": "USER#ada"}, "sk": {"S": "ORDER#2026-11-28#o1"}},
            "UpdateExpression": "SET #s = :c REMOVE open_wh, open_at", "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":c": {"S": "SHIPPED"}}}),
    ));
    let requests = vec![
        SavedRequest {
            title: "A user's profile",
            operation: "GetItem",
            request: json!({"TableName": ORDERS_TABLE, "Key": {"pk": {"S": "USER#ada"}, "sk": {"S": "PROFILE"}}, "ReturnConsumedCapacity": "TOTAL"}),
        },
        SavedRequest {
            title: "A user's orders, newest first (2 per page)",
            operation: "Query",
            request: json!({"TableName": ORDERS_TABLE, "KeyConditionExpression": "pk = :u AND begins_with(sk, :o)",
                "ExpressionAttributeValues": {":u": {"S": "USER#ada"}, ":o": {"S": "ORDER#"}}, "ScanIndexForward": false,
                "Limit": 2, "ReturnConsumedCapacity": "INDEXES"}),
        },
        SavedRequest {
            title: "An order with its line items",
            operation: "Query",
            request: json!({"TableName": ORDERS_TABLE, "KeyConditionExpression": "pk = :o",
                "ExpressionAttributeValues": {":o": {"S": "ORDER#o3"}}, "ReturnConsumedCapacity": "TOTAL"}),
        },
        SavedRequest {
            title: "Open orders in a warehouse (sparse GSI)",
            operation: "Query",
            request: json!({"TableName": ORDERS_TABLE, "IndexName": "open_orders", "KeyConditionExpression": "open_wh = :w",
                "ExpressionAttributeValues": {":w": {"S": "w1"}}, "ReturnConsumedCapacity": "INDEXES"}),
        },
        SavedRequest {
            title: "Stock of a SKU",
            operation: "GetItem",
            request: json!({"TableName": ORDERS_TABLE, "Key": {"pk": {"S": "SKU#ink"}, "sk": {"S": "STOCK"}}, "ConsistentRead": true, "ReturnConsumedCapacity": "TOTAL"}),
        },
        SavedRequest {
            title: "Place an order (transaction)",
            operation: "TransactWriteItems",
            request: place_order("grace", "o6", "2026-12-02", "w2", "pad", 2, 4),
        },
        SavedRequest {
            title: "Oversell: an order for more ink than in stock (cancelled)",
            operation: "TransactWriteItems",
            request: place_order("grace", "o7", "2026-12-02", "w2", "ink", 50, 7),
        },
        SavedRequest {
            title: "Sign up with an email already taken (cancelled)",
            operation: "TransactWriteItems",
            request: sign_up("mallory", "ada@example.com"),
        },
        SavedRequest {
            title: "Ship an order: it leaves the open-orders index",
            operation: "UpdateItem",
            request: json!({"TableName": ORDERS_TABLE, "Key": {"pk": {"S": "USER#ada"}, "sk": {"S": "ORDER#2026-12-02#o5"}},
                "UpdateExpression": "SET #s = :s REMOVE open_wh, open_at", "ConditionExpression": "#s = :open",
                "ExpressionAttributeNames": {"#s": "status"},
                "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":open": {"S": "OPEN"}},
                "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "INDEXES"}),
        },
        SavedRequest {
            title: "Ship it again: the condition fails",
            operation: "UpdateItem",
            request: json!({"TableName": ORDERS_TABLE, "Key": {"pk": {"S": "USER#ada"}, "sk": {"S": "ORDER#2026-11-28#o1"}},
                "UpdateExpression": "SET #s = :s", "ConditionExpression": "#s = :open",
                "ExpressionAttributeNames": {"#s": "status"},
                "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":open": {"S": "OPEN"}},
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
        },
    ];
    Example {
        id: "orders",
        title: "Orders service",
        description: "Users with their orders newest-first in one item collection, order line items, stock per SKU, a unique-email guard, and a sparse GSI of open orders per warehouse. Placing an order is one transaction.",
        setup,
        requests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::{Engine, FixedClock};
    use std::sync::Arc;

    #[test]
    fn the_orders_example_loads_and_every_pattern_does_what_its_title_says() {
        let example = example("orders").expect("gallery has it");
        let mut engine = Engine::new(Arc::new(FixedClock::at(1_764_633_600_000)));
        for (operation, request) in &example.setup {
            engine.execute_value(operation, request).unwrap_or_else(|e| panic!("{operation}: {e:?}"));
        }
        let mut outcomes = Vec::new();
        for saved in &example.requests {
            outcomes.push((saved.title, engine.execute_value(saved.operation, &saved.request)));
        }
        let ok = |i: usize| outcomes[i].1.as_ref().unwrap_or_else(|e| panic!("{}: {e:?}", outcomes[i].0)).clone();
        assert_eq!(ok(0)["Item"]["email"]["S"], "ada@example.com");
        let newest = ok(1);
        assert_eq!(newest["Items"][0]["sk"]["S"], "ORDER#2026-12-02#o5");
        assert_eq!(newest["Count"], 2);
        assert!(newest.get("LastEvaluatedKey").is_some(), "a next page to follow");
        assert_eq!(ok(2)["Count"], 1);
        let open = ok(3);
        let open_keys: Vec<&str> =
            open["Items"].as_array().expect("items").iter().filter_map(|i| i["open_at"]["S"].as_str()).collect();
        assert_eq!(open_keys, ["2026-11-30#o2", "2026-12-01#o4", "2026-12-02#o5"], "o1 shipped, o3 is in w2");
        assert_eq!(ok(4)["Item"]["qty"]["N"], "3");
        ok(5);
        for (i, reasons) in
            [(6, ["ConditionalCheckFailed", "None", "None"].as_slice()), (7, &["None", "ConditionalCheckFailed"])]
        {
            let error = outcomes[i].1.as_ref().expect_err(outcomes[i].0);
            let codes: Vec<&str> = error
                .cancellation_reasons
                .as_ref()
                .expect("reasons")
                .iter()
                .filter_map(|r| r["Code"].as_str())
                .collect();
            assert_eq!(codes, reasons, "{}", outcomes[i].0);
        }
        assert_eq!(ok(8)["Attributes"]["status"]["S"], "SHIPPED");
        let failed = outcomes[9].1.as_ref().expect_err("already shipped");
        assert_eq!(failed.kind.name(), "ConditionalCheckFailedException");
    }
}
