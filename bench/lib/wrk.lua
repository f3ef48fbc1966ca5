-- wrk request script for bench/http.ts. From the environment: BENCH_METHOD, BENCH_PATHS_FILE
-- (one path a line, sent in turn), BENCH_API_KEY (sent as X-API-Key), BENCH_BODY_FILE (JSON body),
-- BENCH_ACCEPT_ENCODING (sent as Accept-Encoding).
local method = os.getenv("BENCH_METHOD") or "GET"
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS_FILE")) do
  paths[#paths + 1] = line
end
local headers = {}
local key = os.getenv("BENCH_API_KEY")
if key and key ~= "" then headers["X-API-Key"] = key end
local encoding = os.getenv("BENCH_ACCEPT_ENCODING")
if encoding and encoding ~= "" then headers["Accept-Encoding"] = encoding end
local body = nil
local body_file = os.getenv("BENCH_BODY_FILE")
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "r"))
  body = f:read("*a")
  f:close()
  headers["Content-Type"] = "application/json"
end

local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format(method, paths[i], headers, body)
end
