//! The operations the engine runs, as one typed list: every front end (the HTTP server, its write
//! log, the workbook runner, the AWS CLI translator, the playground's console) takes its facts about
//! an operation from here instead of keeping a list of names of its own.

/// Which AWS API an operation belongs to: the HTTP target prefix and the AWS CLI service differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// `DynamoDB_20120810`, `aws dynamodb`.
    DynamoDb,
    /// `DynamoDBStreams_20120810`, `aws dynamodbstreams`.
    Streams,
}

impl Api {
    /// The `X-Amz-Target` prefix, without the dot.
    pub const fn target_prefix(self) -> &'static str {
        match self {
            Self::DynamoDb => "DynamoDB_20120810",
            Self::Streams => "DynamoDBStreams_20120810",
        }
    }

    /// The AWS CLI's service name.
    pub const fn cli_service(self) -> &'static str {
        match self {
            Self::DynamoDb => "dynamodb",
            Self::Streams => "dynamodbstreams",
        }
    }
}

/// What an operation does to the engine's state, as a category known before it runs. Whether one
/// request actually changed anything is reported by the engine after it ran
/// ([`crate::Executed::changed`]): a PartiQL SELECT is a `MayWrite` that changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Never changes state.
    Read,
    /// Changes items, tables or their settings when it succeeds (or, for PartiQL, when the
    /// statement is a write).
    MayWrite,
}

macro_rules! operations {
    ($($variant:ident: $api:ident, $effect:ident, $capacity:literal;)*) => {
        /// One DynamoDB or DynamoDB Streams operation the engine runs.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Operation {
            $(#[doc = concat!("`", stringify!($variant), "`")] $variant,)*
        }

        impl Operation {
            /// Every operation, in the order the playground lists them.
            pub const ALL: &'static [Operation] = &[$(Operation::$variant,)*];

            /// The operation's name as DynamoDB spells it (`"PutItem"`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Operation::$variant => stringify!($variant),)*
                }
            }

            /// The API it belongs to.
            pub const fn api(self) -> Api {
                match self {
                    $(Operation::$variant => Api::$api,)*
                }
            }

            /// Whether it may change state.
            pub const fn effect(self) -> Effect {
                match self {
                    $(Operation::$variant => Effect::$effect,)*
                }
            }

            /// Whether it takes `ReturnConsumedCapacity` and so can say what it consumed.
            pub const fn reports_capacity(self) -> bool {
                match self {
                    $(Operation::$variant => $capacity,)*
                }
            }
        }
    };
}

operations! {
    Query: DynamoDb, Read, true;
    GetItem: DynamoDb, Read, true;
    PutItem: DynamoDb, MayWrite, true;
    UpdateItem: DynamoDb, MayWrite, true;
    DeleteItem: DynamoDb, MayWrite, true;
    Scan: DynamoDb, Read, true;
    SearchVectors: DynamoDb, Read, true;
    ExecuteStatement: DynamoDb, MayWrite, false;
    BatchExecuteStatement: DynamoDb, MayWrite, false;
    ExecuteTransaction: DynamoDb, MayWrite, false;
    BatchGetItem: DynamoDb, Read, true;
    BatchWriteItem: DynamoDb, MayWrite, true;
    TransactWriteItems: DynamoDb, MayWrite, true;
    TransactGetItems: DynamoDb, Read, true;
    CreateTable: DynamoDb, MayWrite, false;
    DescribeTable: DynamoDb, Read, false;
    UpdateTable: DynamoDb, MayWrite, false;
    DeleteTable: DynamoDb, MayWrite, false;
    ListTables: DynamoDb, Read, false;
    UpdateTimeToLive: DynamoDb, MayWrite, false;
    DescribeTimeToLive: DynamoDb, Read, false;
    DescribeContinuousBackups: DynamoDb, Read, false;
    UpdateContinuousBackups: DynamoDb, MayWrite, false;
    TagResource: DynamoDb, MayWrite, false;
    UntagResource: DynamoDb, MayWrite, false;
    ListTagsOfResource: DynamoDb, Read, false;
    DescribeLimits: DynamoDb, Read, false;
    DescribeEndpoints: DynamoDb, Read, false;
    ListStreams: Streams, Read, false;
    DescribeStream: Streams, Read, false;
    GetShardIterator: Streams, Read, false;
    GetRecords: Streams, Read, false;
}

impl Operation {
    /// The operation with this DynamoDB name, if the engine runs it.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// The operation an `X-Amz-Target` header names (`DynamoDB_20120810.PutItem`), if the engine
    /// runs it under that API: a Streams operation under DynamoDB's prefix is not one.
    pub fn from_target(target: &str) -> Option<Self> {
        let (prefix, name) = target.split_once('.')?;
        Self::from_name(name).filter(|op| op.api().target_prefix() == prefix)
    }

    /// The operation an `X-Amz-Target` header names, or DynamoDB's answer to one it does not
    /// (`UnknownOperationException`, naming the cloud-only feature when it is one).
    pub fn for_target(target: &str) -> Result<Self, crate::DynamoError> {
        Self::from_target(target).ok_or_else(|| {
            let name = target.split_once('.').map_or("", |(_, name)| name);
            crate::unknown_operation(name)
        })
    }

    /// The `X-Amz-Target` header value that names it.
    pub fn target(self) -> String {
        format!("{}.{}", self.api().target_prefix(), self.name())
    }

    /// The AWS CLI's name for it (`put-item`, `list-tags-of-resource`).
    pub fn cli_name(self) -> String {
        let mut cli = String::new();
        for (i, c) in self.name().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                cli.push('-');
            }
            cli.push(c.to_ascii_lowercase());
        }
        cli
    }

    /// The operation the AWS CLI names `name` under `service` (`dynamodb`, `dynamodbstreams`).
    pub fn from_cli(service: &str, name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|op| op.api().cli_service() == service && op.cli_name() == name)
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_targets_and_cli_names_round_trip() {
        for &op in Operation::ALL {
            assert_eq!(Operation::from_name(op.name()), Some(op));
            assert_eq!(Operation::from_target(&op.target()), Some(op));
            assert_eq!(Operation::from_cli(op.api().cli_service(), &op.cli_name()), Some(op));
        }
        assert_eq!(Operation::PutItem.cli_name(), "put-item");
        assert_eq!(Operation::ListTagsOfResource.cli_name(), "list-tags-of-resource");
        assert_eq!(Operation::from_target("DynamoDB_20120810.GetRecords"), None, "a Streams call under DynamoDB's API");
        assert_eq!(Operation::from_target("DynamoDBStreams_20120810.GetRecords"), Some(Operation::GetRecords));
        assert_eq!(Operation::from_target("DynamoDB_20120810.CreateBackup"), None);
        assert_eq!(Operation::from_name("Select"), None);
        assert_eq!(Operation::for_target("DynamoDB_20120810.Query"), Ok(Operation::Query));
        let backup = Operation::for_target("DynamoDB_20120810.CreateBackup").expect_err("cloud only");
        assert_eq!(backup.kind.name(), "UnknownOperationException");
        assert!(backup.message.contains("CreateBackup"), "{}", backup.message);
    }

    #[test]
    fn facts_that_front_ends_rely_on() {
        let reporting: Vec<&str> =
            Operation::ALL.iter().filter(|op| op.reports_capacity()).map(|op| op.name()).collect();
        assert_eq!(reporting.len(), 11, "{reporting:?}");
        assert_eq!(Operation::ExecuteStatement.effect(), Effect::MayWrite);
        assert_eq!(Operation::GetRecords.effect(), Effect::Read);
        assert_eq!(Operation::ALL.len(), 32);
    }
}
