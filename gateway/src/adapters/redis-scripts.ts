import { LEASE_DIVISOR } from '../domain/token-lease.js';

/**
 * The Lua scripts of the Redis rate limiter (adapters/redis-rate-limiter.ts): the arithmetic of
 * domain/token-bucket.ts and domain/token-lease.ts, run atomically on Redis's clock.
 */
/**
 * rebase of domain/token-bucket.ts: a level counted against another capacity (the plan changed)
 * keeps what was spent. Shared head of every script.
 */
const REBASE = `
local function rebased(tokens, cap, capacity)
  if cap == nil or cap == capacity then return tokens end
  return math.max(0, math.min(capacity, tokens + capacity - cap))
end
`;

/** Refill on Redis's clock, so replicas with skewed clocks agree. Shared head of both scripts. */
const REFILL = `${REBASE}
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'cap')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
local cap = tonumber(state[3])
if (tokens == nil or ts == nil) and KEYS[2] and KEYS[2] ~= KEYS[1] then
  state = redis.call('HMGET', KEYS[2], 'tokens', 'ts', 'cap')
  tokens = tonumber(state[1])
  ts = tonumber(state[2])
  cap = tonumber(state[3])
end
if tokens == nil or ts == nil then
  tokens = capacity
else
  tokens = math.min(capacity, rebased(tokens, cap, capacity) + math.max(0, now - ts) * per_ms)
end
`;

const STORE = `
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now), 'cap', tostring(capacity))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / per_ms) + 1000)
`;

/**
 * The token bucket of domain/token-bucket.ts as one atomic script: read, refill, take, write and
 * expire in a single round trip. Returns {allowed, tokens as a string} because Redis truncates
 * Lua numbers to integers.
 */
export const TAKE_SCRIPT = `${REFILL}
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
${STORE}
return {allowed, tostring(tokens)}
`;

/**
 * retire of domain/token-bucket.ts: KEYS[1] the revoked key's bucket, KEYS[2] the account's
 * retired-keys bucket, which takes the lower level of the two.
 */
export const RETIRE_SCRIPT = `${REBASE}
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function level(key)
  local state = redis.call('HMGET', key, 'tokens', 'ts', 'cap')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if tokens == nil or ts == nil then return nil end
  return math.min(capacity, rebased(tokens, tonumber(state[3]), capacity) + math.max(0, now - ts) * per_ms)
end
local spent = level(KEYS[1])
if spent == nil then return 0 end
local retired = level(KEYS[2])
local tokens = spent
if retired ~= nil and retired < tokens then tokens = retired end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'ts', tostring(now), 'cap', tostring(capacity))
redis.call('PEXPIRE', KEYS[2], math.ceil((capacity - tokens) / per_ms) + 1000)
return 1
`;

/**
 * takeWithin for a batch of data calls, in their order, on one clock reading: for each call i,
 * KEYS[3i+1..3i+3] (its key's bucket, the bucket a new one starts from, the account-wide bucket).
 * ARGV[1] is the largest lease (domain/token-lease.ts: a take that asks for one grants up to
 * 1/divisor of the bucket's level, at most that many tokens, at least the one its call needs;
 * once per bucket and batch, so that calls of one batch do not each lease). The batch's distinct
 * policies follow, two fields each (capacity, refill per ms), then one field per call: the index
 * of its key's policy × 1024 + that of its account's, + 2^20 if it asks a lease of its key's
 * bucket, + 2^21 of its account's (few policies, so a call sends four fields rather than seven).
 * Each call takes from its key's bucket and, only if that allowed, from the account's, exactly as
 * one call after the other would. A bucket that several calls of the batch touch is read once and written once, at the
 * end, so a batch that fails (e.g. a key of the wrong type) writes nothing. Returns one string,
 * five space-separated fields per call (one reply field to parse rather than 5n): 0 (own
 * refused), 1 (own allowed, account refused) or 3 (both allowed); the own tokens left; the
 * account's tokens left (empty when not taken); the tokens granted from each (0 when refused).
 * Tokens as text, as Redis would truncate Lua numbers.
 */
export const TAKE_BATCH_SCRIPT = `${REBASE}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local level = {}
local capacity_of = {}
local per_ms_of = {}
local touched = {}
local function stored(key)
  if level[key] ~= nil then return level[key], now, capacity_of[key] end
  local state = redis.call('HMGET', key, 'tokens', 'ts', 'cap')
  local tokens = tonumber(state[1])
  local ts = tonumber(state[2])
  if tokens == nil or ts == nil then return nil, nil, nil end
  return tokens, ts, tonumber(state[3])
end
local max_lease = tonumber(ARGV[1])
local leased = {}
local function take(key, from, capacity, per_ms, want_lease)
  local tokens, ts, cap = stored(key)
  if tokens == nil and from ~= key then
    tokens, ts, cap = stored(from)
  end
  if tokens == nil then
    tokens = capacity
  else
    tokens = math.min(capacity, rebased(tokens, cap, capacity) + math.max(0, now - ts) * per_ms)
  end
  local granted = 0
  if tokens >= 1 then
    granted = 1
    if want_lease == 1 and leased[key] == nil then
      granted = math.max(1, math.min(max_lease, math.floor(tokens / ${LEASE_DIVISOR})))
      leased[key] = true
    end
    tokens = tokens - granted
  end
  if level[key] == nil then touched[#touched + 1] = key end
  level[key] = tokens
  capacity_of[key] = capacity
  per_ms_of[key] = per_ms
  return granted, tokens
end
local calls = #KEYS / 3
local policies = (#ARGV - 1 - calls) / 2
local capacity = {}
local per_ms = {}
for p = 0, policies - 1 do
  capacity[p] = tonumber(ARGV[p * 2 + 2])
  per_ms[p] = tonumber(ARGV[p * 2 + 3])
end
local out = {}
for i = 0, calls - 1 do
  local k = i * 3
  local o = i * 5
  local which = tonumber(ARGV[1 + policies * 2 + i + 1])
  local want_own = math.floor(which / 1048576) % 2
  local want_account = math.floor(which / 2097152) % 2
  which = which % 1048576
  local own = math.floor(which / 1024)
  local account = which % 1024
  local granted, tokens = take(KEYS[k + 1], KEYS[k + 2], capacity[own], per_ms[own], want_own)
  out[o + 2] = tostring(tokens)
  out[o + 4] = tostring(granted)
  if granted == 0 then
    out[o + 1] = '0'
    out[o + 3] = ''
    out[o + 5] = '0'
  else
    local account_granted, account_tokens = take(KEYS[k + 3], KEYS[k + 3], capacity[account], per_ms[account], want_account)
    out[o + 1] = account_granted > 0 and '3' or '1'
    out[o + 3] = tostring(account_tokens)
    out[o + 5] = tostring(account_granted)
  end
end
for _, key in ipairs(touched) do
  local tokens = level[key]
  redis.call('HSET', key, 'tokens', tostring(tokens), 'ts', tostring(now), 'cap', tostring(capacity_of[key]))
  redis.call('PEXPIRE', key, math.ceil((capacity_of[key] - tokens) / per_ms_of[key]) + 1000)
end
return table.concat(out, ' ')
`;

/** returnToken of domain/token-bucket.ts. */
export const GIVE_BACK_SCRIPT = `${REFILL}
tokens = math.min(capacity, tokens + 1)
${STORE}
return 1
`;
