-- wrk script for benches/serve.sh: LOAD=get|put|update|query picks the request. Headers look signed
-- (no server here verifies signatures). Keys cycle through what benches/load.py preloaded.
local load = os.getenv("LOAD") or "get"
local targets = { get = "GetItem", put = "PutItem", update = "UpdateItem", query = "Query" }
local pad = string.rep("x", 150)
local bodies = {
  get = function(n) return string.format('{"TableName":"bench","Key":{"id":{"S":"item-%d"}}}', n % 1000) end,
  put = function(n)
    return string.format('{"TableName":"bench","Item":{"id":{"S":"item-%d"},"n":{"N":"%d"},"pad":{"S":"%s"}}}', n % 1000, n, pad)
  end,
  update = function(n)
    return string.format('{"TableName":"bench","Key":{"id":{"S":"item-%d"}},"UpdateExpression":"ADD hits :one","ExpressionAttributeValues":{":one":{"N":"1"}}}', n % 1000)
  end,
  query = function(n)
    return string.format('{"TableName":"feed","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"feed-%d"}}}', n % 5000)
  end,
}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810." .. targets[load]
wrk.headers["X-Amz-Date"] = "20261202T000000Z"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[load](n))
end
