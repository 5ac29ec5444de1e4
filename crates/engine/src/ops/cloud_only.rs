//! Operations of DynamoDB's control plane that exist only in the AWS cloud (backups, point-in-time
//! recovery, exports and imports, Kinesis destinations, Contributor Insights, global tables,
//! resource policies...). They are answered with UnknownOperationException saying so, rather than
//! a silent success that would leave a lab user believing a backup exists.

/// The operation's feature, if it is one of these.
pub fn feature(operation: &str) -> Option<&'static str> {
    Some(match operation {
        "CreateBackup" | "DeleteBackup" | "DescribeBackup" | "ListBackups" | "RestoreTableFromBackup" => {
            "on-demand backups"
        }
        "RestoreTableToPointInTime" => "point-in-time recovery",
        "ExportTableToPointInTime" | "DescribeExport" | "ListExports" => "exports to Amazon S3",
        "ImportTable" | "DescribeImport" | "ListImports" => "imports from Amazon S3",
        "EnableKinesisStreamingDestination"
        | "DisableKinesisStreamingDestination"
        | "DescribeKinesisStreamingDestination"
        | "UpdateKinesisStreamingDestination" => "Kinesis Data Streams destinations",
        "DescribeContributorInsights" | "ListContributorInsights" | "UpdateContributorInsights" => {
            "CloudWatch Contributor Insights"
        }
        "CreateGlobalTable"
        | "DescribeGlobalTable"
        | "DescribeGlobalTableSettings"
        | "ListGlobalTables"
        | "UpdateGlobalTable"
        | "UpdateGlobalTableSettings"
        | "DescribeTableReplicaAutoScaling"
        | "UpdateTableReplicaAutoScaling" => "global tables",
        "GetResourcePolicy" | "PutResourcePolicy" | "DeleteResourcePolicy" => "resource-based policies",
        "UpdateTimeToLiveSettings" | "DescribeEndpointsForAccount" => "account settings",
        _ => return None,
    })
}

/// The message a cloud-only operation is answered with.
pub fn message(operation: &str, feature: &str) -> String {
    format!("{operation} is part of DynamoDB's {feature}, which exist only in the AWS cloud; Dynalab does not run it")
}

#[cfg(test)]
mod tests {
    #[test]
    fn cloud_only_operations_say_what_they_are() {
        assert_eq!(super::feature("CreateBackup"), Some("on-demand backups"));
        assert_eq!(super::feature("PutItem"), None);
        assert!(super::message("CreateBackup", "on-demand backups")
            .starts_with("CreateBackup is part of DynamoDB's on-demand backups"));
    }
}
