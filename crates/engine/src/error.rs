//! DynamoDB's errors: the name a client matches on and the exact message it shows.

use crate::value::Item;
use serde_json::{json, Map, Value};

/// Every error the engine can answer with. The name is what SDKs turn into a typed exception.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Validation,
    Serialization,
    UnknownOperation,
    ResourceNotFound,
    ResourceInUse,
    ConditionalCheckFailed,
    TransactionCanceled,
    IdempotentParameterMismatch,
    ItemCollectionSizeLimitExceeded,
    LimitExceeded,
    InternalServerError,
    /// No SigV4 `Authorization` header (the HTTP endpoint's check).
    MissingAuthenticationToken,
    /// An `Authorization` header missing parts of SigV4 (the HTTP endpoint's check).
    IncompleteSignature,
    /// ListTagsOfResource on a table that does not exist (the real service's answer).
    AccessDenied,
    /// A PartiQL INSERT of a key that exists.
    DuplicateItem,
    /// A Streams shard iterator older than 15 minutes.
    ExpiredIterator,
    /// A Streams read before the oldest record kept.
    TrimmedDataAccess,
    /// A request body over 16 MiB (the HTTP endpoint's check; HTTP 413 like DynamoDB Local).
    RequestEntityTooLarge,
    /// A request a local server will not run: its Host or Origin is not allowed (HTTP 403).
    Forbidden,
    /// A request body that did not arrive in time (the HTTP endpoint's check; HTTP 408).
    RequestTimeout,
    /// A request body in an unknown or broken Content-Encoding (HTTP 500, as DynamoDB answers).
    InternalFailure,
    /// DescribeContinuousBackups of a table that does not exist.
    TableNotFound,
    /// An access key the server does not know (`dynalab serve --credentials`).
    UnrecognizedClient,
    /// A signature that does not verify, or a request dated too far from now (`--credentials`).
    InvalidSignature,
    /// The server is out of a resource for now; retryable (HTTP 503, which every SDK retries).
    ServiceUnavailable,
}

impl ErrorKind {
    /// The exception name without its namespace, e.g. `ValidationException`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Validation => "ValidationException",
            Self::Serialization => "SerializationException",
            Self::UnknownOperation => "UnknownOperationException",
            Self::ResourceNotFound => "ResourceNotFoundException",
            Self::ResourceInUse => "ResourceInUseException",
            Self::ConditionalCheckFailed => "ConditionalCheckFailedException",
            Self::TransactionCanceled => "TransactionCanceledException",
            Self::IdempotentParameterMismatch => "IdempotentParameterMismatchException",
            Self::ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceededException",
            Self::LimitExceeded => "LimitExceededException",
            Self::InternalServerError => "InternalServerError",
            Self::MissingAuthenticationToken => "MissingAuthenticationTokenException",
            Self::IncompleteSignature => "IncompleteSignatureException",
            Self::RequestEntityTooLarge => "RequestEntityTooLargeException",
            Self::AccessDenied => "AccessDeniedException",
            Self::ExpiredIterator => "ExpiredIteratorException",
            Self::DuplicateItem => "DuplicateItemException",
            Self::TrimmedDataAccess => "TrimmedDataAccessException",
            Self::Forbidden => "AccessDeniedException",
            Self::RequestTimeout => "RequestTimeoutException",
            Self::InternalFailure => "InternalFailure",
            Self::TableNotFound => "TableNotFoundException",
            Self::UnrecognizedClient => "UnrecognizedClientException",
            Self::InvalidSignature => "InvalidSignatureException",
            Self::ServiceUnavailable => "ServiceUnavailableException",
        }
    }

    /// The `__type` DynamoDB puts on the wire: Coral's framework errors keep Coral's namespaces.
    pub fn wire_type(self) -> String {
        let namespace = match self {
            Self::Validation => "com.amazon.coral.validate",
            Self::Serialization
            | Self::UnknownOperation
            | Self::MissingAuthenticationToken
            | Self::IncompleteSignature
            | Self::RequestEntityTooLarge
            | Self::AccessDenied
            | Self::Forbidden
            | Self::RequestTimeout
            | Self::InternalFailure
            | Self::UnrecognizedClient
            | Self::InvalidSignature
            | Self::ServiceUnavailable => "com.amazon.coral.service",
            _ => "com.amazonaws.dynamodb.v20120810",
        };
        format!("{namespace}#{}", self.name())
    }

    /// HTTP status the server sends for it.
    pub fn http_status(self) -> u16 {
        match self {
            Self::InternalServerError | Self::InternalFailure => 500,
            Self::RequestEntityTooLarge => 413,
            Self::Forbidden => 403,
            Self::RequestTimeout => 408,
            Self::ServiceUnavailable => 503,
            _ => 400,
        }
    }
}

/// An error response: kind, message, and the extras some errors carry.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamoError {
    pub kind: ErrorKind,
    pub message: String,
    /// The old item on a `ConditionalCheckFailedException` with `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
    pub item: Option<Item>,
    /// `CancellationReasons` of a `TransactionCanceledException`, already in wire shape.
    pub cancellation_reasons: Option<Vec<Value>>,
    /// Which envelope family the message belongs to, if any: whether it is said inside Coral's
    /// "1 validation error detected: " depends on the operation answering ([`envelopes`]).
    pub envelope: Option<Envelope>,
}

/// Families of validation messages that some operations wrap in Coral's
/// "1 validation error detected: " and others say bare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// Expression syntax and checks, the placeholder maps, an empty UpdateExpression, a bad number.
    RequestValidation,
    /// Query and Scan's rules for `Select` and a projection.
    SelectRule,
}

/// The envelope rule, in one place (docs/fidelity.md). Tests verified against DynamoDB in August
/// 2026 show the envelope on the single-item writes' request validation and on Query and Scan's
/// Select rules, and none on the same messages from GetItem, Query and Scan expression checks,
/// BatchGetItem or TransactWriteItems; a suite recorded in May 2026 had it on none. The newest
/// evidence is followed; changing this function switches it everywhere.
pub fn envelopes(family: Envelope, operation: crate::Operation) -> bool {
    use crate::Operation::{DeleteItem, PutItem, Query, Scan, UpdateItem};
    match family {
        Envelope::RequestValidation => matches!(operation, PutItem | UpdateItem | DeleteItem),
        Envelope::SelectRule => matches!(operation, Query | Scan),
    }
}

/// Shorthand used across the engine.
pub type Result<T, E = DynamoError> = std::result::Result<T, E>;

impl DynamoError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), item: None, cancellation_reasons: None, envelope: None }
    }

    /// A validation error of the request-validation family (see [`envelopes`]).
    pub fn request_validation(message: impl Into<String>) -> Self {
        Self { envelope: Some(Envelope::RequestValidation), ..Self::validation(message) }
    }

    /// A validation error of Query and Scan's Select rules (see [`envelopes`]).
    pub fn select_rule(message: impl Into<String>) -> Self {
        Self { envelope: Some(Envelope::SelectRule), ..Self::validation(message) }
    }

    /// The error as `operation` answers it: inside Coral's "1 validation error detected: " when
    /// [`envelopes`] says so for its family, bare otherwise.
    #[must_use]
    pub fn answered_by(self, operation: crate::Operation) -> Self {
        match self.envelope {
            Some(family) if envelopes(family, operation) => {
                Self { message: format!("1 validation error detected: {}", self.message), envelope: None, ..self }
            }
            _ => Self { envelope: None, ..self },
        }
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, message)
    }

    pub fn serialization(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Serialization, message)
    }

    /// A data-plane operation on a missing table. Real DynamoDB's text; DynamoDB Local says
    /// "Cannot do operations on a non-existent table".
    pub fn table_not_found() -> Self {
        Self::new(ErrorKind::ResourceNotFound, "Requested resource not found")
    }

    /// DescribeTable / DeleteTable / UpdateTable of a missing table (real DynamoDB's text).
    pub fn named_table_not_found(name: &str) -> Self {
        Self::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Table: {name} not found"))
    }

    pub fn condition_failed(item: Option<Item>) -> Self {
        Self { item, ..Self::new(ErrorKind::ConditionalCheckFailed, "The conditional request failed") }
    }

    /// A transaction cancelled for the reasons given, one per action in request order.
    pub fn transaction_cancelled(reasons: Vec<Value>) -> Self {
        let codes: Vec<&str> = reasons.iter().map(|r| r["Code"].as_str().unwrap_or("None")).collect();
        let message = format!(
            "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
            codes.join(", ")
        );
        Self { cancellation_reasons: Some(reasons), ..Self::new(ErrorKind::TransactionCanceled, message) }
    }

    /// The JSON body DynamoDB sends for this error.
    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert("__type".into(), Value::String(self.kind.wire_type()));
        body.insert("message".into(), Value::String(self.message.clone()));
        if let Some(item) = &self.item {
            body.insert("Item".into(), crate::value::item_to_json(item));
        }
        if let Some(reasons) = &self.cancellation_reasons {
            body.insert("CancellationReasons".into(), json!(reasons));
        }
        Value::Object(body)
    }
}

impl std::fmt::Display for DynamoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for DynamoError {}
