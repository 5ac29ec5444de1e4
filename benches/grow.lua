-- wrk script for benches/memory.py: LOAD=get|query|put against the `orders` table it loaded
-- (SIZE items, 10 per partition); put writes new keys from START on. Items match memory.py's.
local load = os.getenv("LOAD") or "get"
local size = tonumber(os.getenv("SIZE") or "10000")
local start = tonumber(os.getenv("START") or "50000000")
local targets = { get = "GetItem", query = "Query", put = "PutItem" }
local note = string.rep("x", 102)
local function key(i)
  return string.format('"pk":{"S":"CUSTOMER#%08d"},"sk":{"S":"ORDER#%04d"}', math.floor(i / 10), i % 10)
end
local bodies = {
  get = function(n) return string.format('{"TableName":"orders","Key":{%s}}', key((n * 7919) % size)) end,
  query = function(n)
    return string.format('{"TableName":"orders","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"CUSTOMER#%08d"}}}', math.floor(((n * 7919) % size) / 10))
  end,
  put = function(n)
    local i = start + n
    return string.format('{"TableName":"orders","Item":{%s,"status":{"S":"OPEN"},"placed":{"N":"%d"},"total":{"N":"12.50"},"warehouse":{"S":"W%03d"},"note":{"S":"%s"}}}',
      key(i), 1796000000 + i, i % 100, note)
  end,
}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810." .. targets[load]
wrk.headers["X-Amz-Date"] = "20261203T000000Z"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/20261203/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0"
local n = 0
function setup(thread)
  thread:set("offset", math.random(1, 1000000) * 1000)
end
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[load]((offset or 0) + n))
end
