"""boto3 against `dynalab serve --credentials lab:lab`: correctly signed requests of every shape
pass (a body, a compressed body, Streams), and a wrong key, a wrong secret and a clock 20 minutes
off get DynamoDB's errors. Usage: boto3_credentials.py http://127.0.0.1:PORT"""

import datetime
from unittest import mock

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from lab import Checks, client as make_client, endpoint

client = make_client()
check = Checks()

client.create_table(TableName="signed", BillingMode="PAY_PER_REQUEST",
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
client.put_item(TableName="signed", Item={"pk": {"S": "a"}, "text": {"S": "é ü ✓ " * 50}})
got = client.get_item(TableName="signed", Key={"pk": {"S": "a"}})
check("a signed PutItem with a UTF-8 body is stored", got["Item"]["text"]["S"].startswith("é ü ✓"))
arn = client.describe_table(TableName="signed")["Table"]["LatestStreamArn"]
streams = boto3.session.Session(aws_access_key_id="lab", aws_secret_access_key="lab", region_name="us-east-1").client(
    "dynamodbstreams", endpoint_url=endpoint, config=Config(retries={"max_attempts": 1}))
check("a signed Streams call passes", streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamArn"] == arn)


def error_of(call):
    try:
        call()
    except ClientError as error:
        return error.response["Error"]["Code"], error.response["Error"]["Message"]
    return None, None


def other(key, secret):
    return boto3.session.Session(aws_access_key_id=key, aws_secret_access_key=secret, region_name="us-east-1").client(
        "dynamodb", endpoint_url=endpoint, config=Config(retries={"max_attempts": 1}))


code, message = error_of(lambda: other("intruder", "lab").list_tables())
check("an unknown access key is UnrecognizedClientException", code == "UnrecognizedClientException")
check("... with DynamoDB's message", message == "The security token included in the request is invalid.")
code, message = error_of(lambda: other("lab", "guessed").list_tables())
check("a wrong secret is InvalidSignatureException", code == "InvalidSignatureException")
check("... with DynamoDB's message", message.startswith("The request signature we calculated does not match"))

elsewhere = boto3.session.Session(aws_access_key_id="lab", aws_secret_access_key="lab", region_name="eu-west-1").client(
    "dynamodb", endpoint_url=endpoint, config=Config(retries={"max_attempts": 1}))
code, message = error_of(lambda: elsewhere.list_tables())
check("a signature scoped to another region is InvalidSignatureException", code == "InvalidSignatureException")
check("... with DynamoDB's message", message == "Credential should be scoped to a valid region, not 'eu-west-1'. ")

real_now = datetime.datetime.now(datetime.timezone.utc)
for offset, start in [(-20, "Signature expired: "), (20, "Signature not yet current: ")]:
    skewed = real_now + datetime.timedelta(minutes=offset)
    # botocore's SigV4 signer reads the time through get_current_datetime (botocore.auth imports it);
    # older botocore used datetime.datetime.utcnow there.
    target = "botocore.auth.get_current_datetime"
    with mock.patch(target, return_value=skewed.replace(tzinfo=None)):
        code, message = error_of(lambda: other("lab", "lab").list_tables())
    check(f"a request dated {offset} minutes off is InvalidSignatureException", code == "InvalidSignatureException")
    check(f"... saying '{start.strip()}'", (message or "").startswith(start))

check.finish("boto3 with credentials")
