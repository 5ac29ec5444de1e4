# A Terraform configuration in the shape of the terraform-aws-modules/dynamodb-table examples and
# the AWS provider's aws_dynamodb_table documentation: provisioned with auto scaling, a GSI, TTL,
# a stream and a replica.
variable "environment" {
  type    = string
  default = "staging"
}

variable "read_capacity" {
  type    = number
  default = 20
}

locals {
  name = "sessions-${var.environment}"
}

resource "aws_dynamodb_table" "sessions" {
  name             = local.name
  billing_mode     = "PROVISIONED"
  read_capacity    = var.read_capacity
  write_capacity   = 10
  hash_key         = "sessionId"
  range_key        = "issuedAt"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  attribute {
    name = "sessionId"
    type = "S"
  }

  attribute {
    name = "issuedAt"
    type = "N"
  }

  attribute {
    name = "userId"
    type = "S"
  }

  global_secondary_index {
    name               = "by-user"
    hash_key           = "userId"
    range_key          = "issuedAt"
    projection_type    = "INCLUDE"
    non_key_attributes = ["device"]
    read_capacity      = 10
    write_capacity     = 10
  }

  ttl {
    attribute_name = "expiresAt"
    enabled        = true
  }

  replica {
    region_name = "eu-west-1"
  }

  deletion_protection_enabled = true

  tags = {
    Environment = var.environment
  }
}

resource "aws_appautoscaling_target" "sessions_read" {
  max_capacity       = 200
  min_capacity       = 20
  resource_id        = "table/${aws_dynamodb_table.sessions.name}"
  scalable_dimension = "dynamodb:table:ReadCapacityUnits"
  service_namespace  = "dynamodb"
}

resource "aws_appautoscaling_policy" "sessions_read" {
  name               = "sessions-read"
  policy_type        = "TargetTrackingScaling"
  resource_id        = aws_appautoscaling_target.sessions_read.resource_id
  scalable_dimension = aws_appautoscaling_target.sessions_read.scalable_dimension
  service_namespace  = aws_appautoscaling_target.sessions_read.service_namespace
}
