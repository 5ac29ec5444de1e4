//! One request as DynamoDB's JSON 1.0 protocol carries it (the `X-Amz-Target` header and the body),
//! answered as the service sends it back: the status, the body and its CRC32, with the capacity
//! steps it was charged. This is what the in-process SDK handlers pass through — the npm package's
//! for the AWS SDK for JavaScript, the Python package's for botocore — so an SDK client in-process
//! gets the same bytes it would get from `dynalab serve`.

use dynalab_engine::explain::Step;
use dynalab_engine::{DynamoError, Engine, Operation};

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    /// CRC32 of the body, which DynamoDB sends as `x-amz-crc32` and the SDKs may check.
    pub crc32: u32,
    /// The capacity it consumed, step by step (a failed conditional write is charged too).
    pub steps: Vec<Step>,
}

impl Answer {
    fn of(outcome: Result<String, DynamoError>, steps: Vec<Step>) -> Self {
        let (status, body) = match outcome {
            Ok(body) => (200, body),
            Err(error) => (error.kind.http_status(), error.to_json().to_string()),
        };
        let crc32 = crc32fast::hash(body.as_bytes());
        Self { status, body, crc32, steps }
    }
}

/// Runs the operation `target` names on `body`, as the server's dispatch does (less the HTTP:
/// no signature to check, nothing to decompress).
pub fn exchange(engine: &mut Engine, target: &str, body: &str) -> Answer {
    match Operation::for_target(target) {
        Ok(operation) => {
            let outcome = engine.run(operation.name(), body);
            Answer::of(outcome.response, outcome.steps)
        }
        Err(error) => Answer::of(Err(error), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::FixedClock;
    use serde_json::Value;
    use std::sync::Arc;

    fn engine() -> Engine {
        Engine::new(Arc::new(FixedClock::at(1_700_000_000_000)))
    }

    fn body(answer: &Answer) -> Value {
        serde_json::from_str(&answer.body).expect("JSON")
    }

    #[test]
    fn answers_as_the_service_sends_it() {
        let mut engine = engine();
        let created = exchange(
            &mut engine,
            "DynamoDB_20120810.CreateTable",
            r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}"#,
        );
        assert_eq!(created.status, 200, "{}", created.body);
        assert_eq!(body(&created)["TableDescription"]["TableName"], "things");
        assert_eq!(created.crc32, crc32fast::hash(created.body.as_bytes()));
        let put = exchange(
            &mut engine,
            "DynamoDB_20120810.PutItem",
            r#"{"TableName":"things","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"TOTAL"}"#,
        );
        assert_eq!(body(&put)["ConsumedCapacity"]["CapacityUnits"], 1.0);
        let failed = exchange(
            &mut engine,
            "DynamoDB_20120810.PutItem",
            r#"{"TableName":"things","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}"#,
        );
        assert_eq!(failed.status, 400);
        assert_eq!(body(&failed)["__type"], "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException");
        assert_eq!(body(&failed)["message"], "The conditional request failed");
    }

    #[test]
    fn refuses_what_the_service_refuses() {
        let mut engine = engine();
        let malformed = exchange(&mut engine, "DynamoDB_20120810.GetItem", "{not json");
        assert_eq!(
            (malformed.status, body(&malformed)["__type"].as_str()),
            (400, Some("com.amazon.coral.service#SerializationException"))
        );
        let unknown = exchange(&mut engine, "DynamoDB_20120810.CreateBackup", "{}");
        assert_eq!(body(&unknown)["__type"], "com.amazon.coral.service#UnknownOperationException");
        let wrong_api = exchange(&mut engine, "DynamoDB_20120810.GetRecords", "{}");
        assert_eq!(body(&wrong_api)["__type"], "com.amazon.coral.service#UnknownOperationException");
        let missing =
            exchange(&mut engine, "DynamoDB_20120810.GetItem", r#"{"TableName":"nope","Key":{"pk":{"S":"a"}}}"#);
        assert_eq!(body(&missing)["__type"], "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException");
        let streams = exchange(&mut engine, "DynamoDBStreams_20120810.ListStreams", "{}");
        assert_eq!((streams.status, body(&streams)["Streams"].as_array().map(Vec::len)), (200, Some(0)));
    }
}
