-- apply.lua: the one script Sluice's Redis store runs (EVALSHA). It applies a batch of groups in order. A group
-- is one Store call of the client (op, time, items); it is all-or-nothing across every limit of every one of its
-- items, and independent of the other groups. The algorithm twins (gcra.lua ... concurrency.lua) are pasted by
-- the loader (src/stores/redis/script.ts) in place of the kernels marker line below, as the branches of
-- `kernel(code)`, so that a call only creates the closures of the algorithms it uses.
--
-- KEYS: the state key of every limit of every item, in batch order (group, then item, then the limits of the
--   item's set in declaration order). The store names them `<prefix>:{<identity>}:<namespace>:<policy>`. A key
--   may appear several times; the script keeps one copy of each state per call, so later groups see earlier
--   ones.
--
-- ARGV[1]: one binary string of little-endian IEEE-754 doubles (struct '<d'), read in this order. Binary, so
--   that no number is formatted by the client or parsed by Lua (tonumber costs ~300 ns here, an unpack ~70 ns)
--   and every value, fractions included, arrives exactly:
--     ttlMarginMs        added to every TTL (whole ms >= 0)
--     S                  number of limit sets described next (a batch names each distinct set once)
--     per set:
--       n                number of limits of the set
--       per limit, 5 doubles:
--         code           algorithm: 1 gcra, 2 token_bucket, 3 leaky_bucket, 4 fixed_window, 5 sliding_window,
--                        6 sliding_log, 7 bucketed_window, 8 concurrency
--         limit          units per period (leases in flight for concurrency)
--         periodMs       period (lease lifetime for concurrency)
--         burst          most units at once (equal to limit except for gcra, token_bucket, leaky_bucket)
--         bucketMs       bucket width of bucketed_window (0 otherwise)
--     G                  number of groups
--     per group:
--       op               1 consume, 2 peek, 3 refund, 4 reset, 5 release
--       now              epoch ms to decide at (fractions allowed), or -1 for the server clock (TIME, read once)
--       m                number of items
--       per item:
--         set            index of the item's limit set (1-based)
--         cost           consume / peek: units asked for; refund: units given back; reset / release: 0
--         lease ids      release only: one per limit of the set (0: none for that limit)
--
-- Reply: a flat array of integers; per group:
--   committed            1, or 0 when a consume was denied (then nothing of the group was written)
--   then, except for release, per item and per limit of its set, 6 integers:
--     allowed            this limit's own verdict (0/1); the item passes only when committed is 1
--     remaining          whole units left
--     resetAfterMs       whole ms until the key is back to fresh
--     retryAfterMs       whole ms until the cost could pass (0 when allowed, -1 when it never can)
--     warning            the limit's warning flag (hysteresis of src/core/limit-state.ts) for the decision
--     leaseId            the concurrency lease taken (0: none)
--
-- State: one Redis string per limit and identity. Byte 1 is a flags byte, `code * 2 + warning`: the algorithm
-- (a key written by another algorithm reads as fresh, as in the reference store) and the warning bit. Then the
-- kernel's state fields in the order of the TS Float64Array, each a little-endian double (struct '<d'): exact
-- round trips, no formatting. Small states (gcra: 1 field; token_bucket, leaky_bucket, fixed_window: 2;
-- sliding_window: 3) are decoded whole into the entry itself (e[0], e[1], e[2]); ring states (sliding_log,
-- bucketed_window, concurrency) are decoded lazily, field by field, and bytes past the end of the string read
-- as 0, so a changed limit cuts or extends the ring exactly as the TS array is cut or extended.
--
-- Warning flag (as the reference store keeps it): updated by a committed consume with nextWarning; cleared by
-- a consume that finds the state idle (idleAfterMs 0); a peek reports nextWarning of the stored flag (when not
-- idle) without storing it.
--
-- Writes happen once per changed key at the end of the call: SET ... PX ceil(idleAfterMs at its last write) +
-- ttlMarginMs, or DEL after a reset. A denied consume writes nothing (except a warning flag cleared on an idle
-- state). So each key's TTL is the time after which it holds no information, plus the margin.

local TIME_TOLERANCE_MS = 1e-3 -- src/core/time-math.ts
local CEIL_SLACK_MS = 1e-4 -- src/core/time-math.ts
local WARNING_ENTER_REMAINING = 0.2 -- src/core/limit-state.ts
local WARNING_LEAVE_REMAINING = 0.3 -- src/core/limit-state.ts
local MAX_TTL_MS = 1e13 -- Redis formats a Lua number >= 1e14 with an exponent, which PX refuses

local floor, ceil = math.floor, math.ceil
local INF = math.huge
local call = redis.call
local spack, sunpack = struct.pack, struct.unpack
local byte, sub = string.byte, string.sub

-- ceilMs of src/core/time-math.ts: rounds a duration up to whole ms, ignoring noise below CEIL_SLACK_MS.
local function ceil_ms(ms)
  if ms <= CEIL_SLACK_MS then return 0 end
  return ceil(ms - CEIL_SLACK_MS)
end

-- floorCount of src/core/time-math.ts: rounds a count down, forgiving `tolerance` (default 1e-9) of noise.
local function floor_count(x, tolerance)
  if x <= 0 then return 0 end
  return floor(x + (tolerance or 1e-9))
end

-- nextWarning of src/core/limit-state.ts.
local function next_warning(previous, remaining, limit)
  if remaining < WARNING_ENTER_REMAINING * limit then return true end
  if remaining > WARNING_LEAVE_REMAINING * limit then return false end
  return previous
end

--[[@kernels]]

-- Ring-state helpers, created on first use (closures cost ~100-250 ns each, per call):
--   R.state(S, eager)   a ring state over the stored string S: a numeric field not yet read decodes from S
--                       (0 past its end) and is cached in the table. With `eager` (algorithms that scan every
--                       field, such as concurrency), every stored field is decoded up front, 32 per unpack, and
--                       kept in `O` too, so the write-back compares without decoding again;
--   R.encode(s, flags)  the string to store: S with the changed fields patched in, zero-filled past its end.
local R
local function ring()
  if R ~= nil then return R end
  local mt = {
    __index = function(s, i)
      local str = rawget(s, "S")
      local at = 2 + 8 * i
      local v = 0
      if at + 7 <= #str then v = sunpack("<d", str, at) end
      rawset(s, i, v)
      return v
    end,
  }
  local function encode(s, flags)
    local S = s.S
    local len = #S
    local idx, n = {}, 0
    local O = rawget(s, "O")
    for k, v in pairs(s) do
      if k ~= "S" and k ~= "O" then
        local at = 2 + 8 * k
        local old = O and O[k]
        if old == nil then
          old = 0
          if at + 7 <= len then old = sunpack("<d", S, at) end
        end
        if v ~= old then
          n = n + 1
          idx[n] = k
        end
      end
    end
    if n > 1 then table.sort(idx) end
    local parts, m = { string.char(flags) }, 1
    local from = 2
    for j = 1, n do
      local k = idx[j]
      local at = 2 + 8 * k
      if at > from then
        if from <= len then
          m = m + 1
          parts[m] = sub(S, from, at - 1)
        end
        local gap = len + 1
        if from > gap then gap = from end
        if at > gap then
          m = m + 1
          parts[m] = string.rep("\0", at - gap)
        end
      end
      m = m + 1
      parts[m] = spack("<d", s[k])
      from = at + 8
    end
    if from <= len then
      m = m + 1
      parts[m] = sub(S, from)
    end
    return table.concat(parts)
  end
  local function state(S, eager)
    local s = { S = S }
    local n = floor((#S - 1) / 8)
    if eager and n > 0 then
      local O = {}
      local i = 0
      while i < n do
        local m = n - i
        if m > 32 then m = 32 end
        local vals = { sunpack("<" .. string.rep("d", m), S, 2 + 8 * i) }
        for j = 1, m do
          s[i + j - 1] = vals[j]
          O[i + j - 1] = vals[j]
        end
        i = i + m
      end
      s.O = O
    end
    return setmetatable(s, mt)
  end
  R = { state = state, encode = encode }
  return R
end

-- Parse the limit sets.
local P = ARGV[1]
local margin, nsets, pos = sunpack("<dd", P)
local kernels = {}
local sets = {}
for si = 1, nsets do
  local n
  n, pos = sunpack("<d", P, pos)
  local set = {}
  for j = 1, n do
    local code, limit, period, burst, bucket
    code, limit, period, burst, bucket, pos = sunpack("<ddddd", P, pos)
    local k = kernels[code]
    if k == nil then
      k = kernel(code)
      kernels[code] = k
    end
    local spec = {
      code = code,
      k = k,
      ring = k.ring,
      limit = limit,
      period = period,
      burst = burst,
      bucket = bucket,
      t = period / limit, -- LimitSpec.emissionMs
      width = k.width,
    }
    if k.ring then spec.width = k.width(spec) end
    set[j] = spec
  end
  sets[si] = set
end

-- Every state this call touches, by key. An entry holds the spec it was last read with, the warning
-- flag `w`, whether Redis holds (or will hold) it (`exists`), whether it must be written back (`dirty`), the
-- time of its last change (`now`), and its state `s`: the entry itself for small states (fields e[0..2]), a
-- ring().state for ring states.
local cache = {}

-- Fresh state for `spec` in `e`.
local function clear(e, spec)
  e.w = false
  e.exists = false
  if spec.ring then
    e.s = ring().state("")
  else
    e[0], e[1], e[2] = 0, 0, 0
    e.s = e
  end
end

-- The entry of `key` read as `spec`: from Redis once per call, then from the cache.
local function load(key, spec, now)
  local e = cache[key]
  if e == nil then
    local raw = call("GET", key)
    e = { [0] = 0, 0, 0, spec = spec, w = false, exists = false, dirty = false, now = now, s = false }
    e.s = e
    cache[key] = e
    local flags = raw and byte(raw, 1) -- GET answers false for a missing key
    if not flags or floor(flags / 2) ~= spec.code then
      if spec.ring then e.s = ring().state("") end
      return e -- missing, or written by another algorithm: fresh, as in the reference store
    end
    local width = spec.width
    if spec.ring then
      local n = 1 + 8 * width
      local cut = #raw > n
      if cut then raw = sub(raw, 1, n) end -- the ring shrank with the limit: keep the common prefix, as the TS
      e.s = ring().state(raw, spec.k.scan)
      if cut then e.dirty = true end
    elseif #raw ~= 1 + 8 * width then
      return e -- not a state of this algorithm: fresh
    elseif width == 1 then
      local _, x = sunpack("<Bd", raw)
      e[0] = x
    elseif width == 2 then
      local _, x, y = sunpack("<Bdd", raw)
      e[0], e[1] = x, y
    else
      local _, x, y, z = sunpack("<Bddd", raw)
      e[0], e[1], e[2] = x, y, z
    end
    e.w = flags % 2 == 1
    e.exists = true
    return e
  end
  local was = e.spec
  if was ~= spec then
    -- The same key under another limit set in this call (a limiter reconfigured while calls were in flight).
    if was.code ~= spec.code then
      local existed = e.exists
      clear(e, spec)
      if existed then e.dirty = true end -- deleted at the end unless written again
    elseif spec.ring and was.width > spec.width then
      local s = e.s
      for k in pairs(s) do
        if k ~= "S" and k ~= "O" and k >= spec.width then s[k] = nil end
      end
      s.S = sub(s.S, 1, 1 + 8 * spec.width)
      if e.exists then
        e.dirty = true
        e.now = now
      end
    end
    e.spec = spec
  end
  return e
end

local out, nout = {}, 0

-- Appends one limit's status to the reply.
local function emit(allowed, remaining, reset, retry, warning, lease)
  if retry == INF then retry = -1 end
  out[nout + 1] = allowed and 1 or 0
  out[nout + 2] = remaining
  out[nout + 3] = reset
  out[nout + 4] = retry
  out[nout + 5] = warning and 1 or 0
  out[nout + 6] = lease
  nout = nout + 6
end

local CONSUME, PEEK, REFUND, RESET, RELEASE = 1, 2, 3, 4, 5
local ents = {} -- ents[n]: the entry of KEYS[n]
local items = {} -- per item i of the current group: [4i-3] set, [4i-2] cost, [4i-1] index of its first key,
                 -- [4i] position of its lease ids in ARGV[1] (release)
local server_now
local ki = 0
local ngroups
ngroups, pos = sunpack("<d", P, pos)
for _ = 1, ngroups do
  local op, now, nitems
  op, now, nitems, pos = sunpack("<ddd", P, pos)
  if now < 0 then
    if server_now == nil then
      local t = call("TIME")
      server_now = t[1] * 1000 + t[2] / 1000
    end
    now = server_now
  end

  for i = 1, nitems do
    local si, cost
    si, cost, pos = sunpack("<dd", P, pos)
    local set = sets[si]
    items[4 * i - 3] = set
    items[4 * i - 2] = cost
    items[4 * i - 1] = ki + 1
    for j = 1, #set do
      ki = ki + 1
      ents[ki] = load(KEYS[ki], set[j], now)
    end
    if op == RELEASE then
      items[4 * i] = pos
      pos = pos + 8 * #set
    end
  end

  nout = nout + 1
  out[nout] = 1
  if op == CONSUME then
    -- A limit idle at this touch has no history: its warning flag goes (kept even when denied).
    for i = 1, nitems do
      local set, f = items[4 * i - 3], items[4 * i - 1] - 1
      for j = 1, #set do
        local e = ents[f + j]
        if e.w and set[j].k.idle(e.s, now, set[j]) <= 0 then
          e.w = false
          e.exists, e.dirty, e.now = true, true, now
        end
      end
    end
    if nitems == 1 and #items[1] == 1 then
      -- One limit: the step itself is all-or-nothing (a denied step writes nothing).
      local spec, e = items[1][1], ents[items[3]]
      local allowed, remaining, reset, retry, lease = spec.k.apply(e.s, now, spec, items[2], true)
      if allowed then
        e.w = next_warning(e.w, remaining, spec.limit)
        e.exists, e.dirty, e.now = true, true, now
      else
        out[nout] = 0
      end
      emit(allowed, remaining, reset, retry, e.w, lease)
    else
      -- Several limits: take every step in order (a key named twice sees its earlier step), keeping a copy of
      -- each state before its first step; on the first denial put every copy back and report each limit's own
      -- verdict on the unchanged state (an allowed one re-run for cost 0, as the reference store does).
      local function snapshot(e) -- a copy of the state and warning flag of `e`
        local st = e.s
        if st ~= e then
          local c = {}
          for k, v in pairs(st) do c[k] = v end
          return { setmetatable(c, getmetatable(st)), e.w }
        end
        return { e[0], e.w, e[1], e[2] }
      end
      local function restore(e, c) -- puts back a snapshot
        if e.s ~= e then
          e.s = c[1]
        else
          e[0], e[1], e[2] = c[1], c[3], c[4]
        end
        e.w = c[2]
      end
      local snaps = {}
      local done, nd = {}, 0
      local ok = true
      for i = 1, nitems do
        local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
        for j = 1, #set do
          local spec, e = set[j], ents[f + j]
          if snaps[e] == nil then snaps[e] = snapshot(e) end
          local allowed, remaining, reset, _, lease = spec.k.apply(e.s, now, spec, cost, true)
          if not allowed then
            ok = false
            break
          end
          e.w = next_warning(e.w, remaining, spec.limit)
          done[nd + 1] = remaining
          done[nd + 2] = reset
          done[nd + 3] = e.w
          done[nd + 4] = lease
          nd = nd + 4
        end
        if not ok then break end
      end
      if ok then
        for e in pairs(snaps) do e.exists, e.dirty, e.now = true, true, now end
        for d = 1, nd, 4 do emit(true, done[d], done[d + 1], 0, done[d + 2], done[d + 3]) end
      else
        out[nout] = 0
        for e, c in pairs(snaps) do restore(e, c) end
        for i = 1, nitems do
          local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
          for j = 1, #set do
            local spec, e = set[j], ents[f + j]
            local k = spec.k
            local allowed, remaining, reset, retry = k.apply(e.s, now, spec, cost, false)
            if allowed then allowed, remaining, reset, retry = k.apply(e.s, now, spec, 0, false) end
            emit(allowed, remaining, reset, retry, e.w, 0)
          end
        end
      end
    end
  elseif op == RELEASE then
    for i = 1, nitems do
      local set, f, at = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i]
      for j = 1, #set do
        local spec, e = set[j], ents[f + j]
        local id = sunpack("<d", P, at + 8 * (j - 1))
        if id > 0 and e.exists and spec.k.release then
          spec.k.release(e.s, now, spec, id)
          e.exists, e.dirty, e.now = true, true, now
        end
      end
    end
  elseif op == PEEK or op == REFUND or op == RESET then
    for i = 1, nitems do
      local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
      if op == REFUND then
        for j = 1, #set do
          local spec, e = set[j], ents[f + j]
          if e.exists and spec.k.refund then
            spec.k.refund(e.s, now, spec, cost)
            e.exists, e.dirty, e.now = true, true, now
          end
        end
        cost = 0
      elseif op == RESET then
        for j = 1, #set do
          local e = ents[f + j]
          clear(e, set[j])
          e.dirty = true -- deleted at the end unless written again
        end
        cost = 0
      end
      -- Report as a peek for `cost`: writes nothing.
      for j = 1, #set do
        local spec, e = set[j], ents[f + j]
        local k = spec.k
        local allowed, remaining, reset, retry = k.apply(e.s, now, spec, cost, false)
        local previous = e.w and k.idle(e.s, now, spec) > 0
        emit(allowed, remaining, reset, retry, allowed and next_warning(previous, remaining, spec.limit), 0)
      end
    end
  else
    return redis.error_reply("ERR sluice: unknown op " .. tostring(op))
  end
end

-- Write back every changed state once: SET with PX = its idle time plus the margin, or DEL after a reset.
for key, e in pairs(cache) do
  if e.dirty then
    if e.exists then
      local spec, s = e.spec, e.s
      local ttl = ceil(spec.k.idle(s, e.now, spec)) + margin
      if not (ttl >= 1) then
        ttl = 1
      elseif ttl > MAX_TTL_MS then
        ttl = MAX_TTL_MS
      end
      local flags = spec.code * 2
      if e.w then flags = flags + 1 end
      local v
      if spec.ring then
        v = ring().encode(s, flags)
      elseif spec.width == 1 then
        v = spack("<Bd", flags, s[0])
      elseif spec.width == 2 then
        v = spack("<Bdd", flags, s[0], s[1])
      else
        v = spack("<Bddd", flags, s[0], s[1], s[2])
      end
      call("SET", key, v, "PX", ttl)
    else
      call("DEL", key)
    end
  end
end

return out
