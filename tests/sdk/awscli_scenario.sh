#!/usr/bin/env bash
# The AWS CLI against `dynalab serve`. Usage: awscli_scenario.sh http://127.0.0.1:PORT
set -u
endpoint="$1"
export AWS_ACCESS_KEY_ID=lab AWS_SECRET_ACCESS_KEY=lab AWS_DEFAULT_REGION=us-east-1 AWS_PAGER=""
# python3 -m awscli rather than `aws`, which a fresh pyenv only finds after a rehash.
ddb() { python3 -m awscli dynamodb --endpoint-url "$endpoint" --output json "$@"; }
passed=0 failed=0
check() { if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1: wanted [$3], got [$2]"; fi; }

ddb create-table --table-name notes --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=N \
  --key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE --billing-mode PAY_PER_REQUEST > /dev/null
ddb wait table-exists --table-name notes
for i in 1 2 3 4 5; do
  ddb put-item --table-name notes --item "{\"pk\":{\"S\":\"n\"},\"sk\":{\"N\":\"$i\"},\"text\":{\"S\":\"note $i\"}}"
done
count=$(ddb query --table-name notes --key-condition-expression "pk = :p" --expression-attribute-values '{":p":{"S":"n"}}' \
  --page-size 2 --query Count)
check "query across pages (the CLI follows LastEvaluatedKey)" "$count" "5"
newest=$(ddb query --table-name notes --key-condition-expression "pk = :p" --expression-attribute-values '{":p":{"S":"n"}}' \
  --no-scan-index-forward --limit 1 --no-paginate --query 'Items[0].sk.N' --output text)
check "newest first" "$newest" "5"
error=$(ddb put-item --table-name notes --item '{"pk":{"S":"n"},"sk":{"N":"1"}}' --condition-expression "attribute_not_exists(pk)" 2>&1 >/dev/null)
case "$error" in *ConditionalCheckFailedException*"The conditional request failed"*) check "conditional failure" ok ok ;; *) check "conditional failure" "$error" "ConditionalCheckFailedException" ;; esac
units=$(ddb get-item --table-name notes --key '{"pk":{"S":"n"},"sk":{"N":"1"}}' --return-consumed-capacity TOTAL --query ConsumedCapacity.CapacityUnits)
check "eventually consistent read units" "$units" "0.5"
ddb delete-table --table-name notes > /dev/null
check "table deleted" "$(ddb list-tables --query 'length(TableNames)')" "0"
echo "awscli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
