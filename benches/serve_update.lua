-- wrk script: UpdateItem incrementing a counter on one of 1,000 items.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.UpdateItem"
wrk.headers["X-Amz-Date"] = "20261202T000000Z"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"TableName":"bench","Key":{"id":{"S":"item-%d"}},"UpdateExpression":"ADD hits :one","ExpressionAttributeValues":{":one":{"N":"1"}}}', n % 1000)
  return wrk.format(nil, nil, nil, body)
end
