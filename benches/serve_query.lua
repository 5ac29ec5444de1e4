-- wrk script: Query returning the 20 items of one of 5,000 partitions.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.Query"
wrk.headers["X-Amz-Date"] = "20261202T000000Z"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"TableName":"feed","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"feed-%d"}}}', n % 5000)
  return wrk.format(nil, nil, nil, body)
end
