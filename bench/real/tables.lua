-- SPDX-License-Identifier: GPL-3.0-or-later
-- accuracy-real.sh's Lua workload: tables of records, strings, closures
-- and a sort; about two seconds.  An argument scales it (0.01 under
-- valgrind).
local scale = tonumber(arg and arg[1]) or 1
local t = {}
for i = 1, math.floor(200000 * scale) do t[i] = { id = i, name = "n" .. i, v = i * 0.5 } end
local s = 0
for r = 1, 10 do
  for i = 1, #t do local e = t[i]; s = s + e.v + #e.name end
  table.sort(t, function(a, b) return a.v > b.v end)
end
local m = {}
for i = 1, math.floor(300000 * scale) do m["k" .. (i % 5000)] = (m["k" .. (i % 5000)] or 0) + i end
print(s)
