-- SPDX-License-Identifier: GPL-3.0-or-later
-- The tsv types table of dtplugin and dtresolve (dtplugin(1), TABLES) as
-- an SQLite table with typed columns:
--   sqlite3 prof.db < types.sql
--   sqlite3 prof.db ".mode tabs" ".import --skip 1 types.tsv types"
--   sqlite3 prof.db "SELECT type, field, samples FROM types ORDER BY samples DESC LIMIT 10"
CREATE TABLE IF NOT EXISTS types (
	event TEXT NOT NULL,
	type TEXT NOT NULL,
	offset INTEGER,			-- empty for an unresolved reason's row
	field TEXT,			-- the reason, for an unresolved row
	samples INTEGER NOT NULL,
	period INTEGER NOT NULL,
	loads INTEGER NOT NULL,
	stores INTEGER NOT NULL,
	rmw INTEGER NOT NULL,
	weight INTEGER NOT NULL,
	weight_samples INTEGER NOT NULL,
	src_L1 INTEGER NOT NULL,
	src_LFB INTEGER NOT NULL,
	src_L2 INTEGER NOT NULL,
	src_L3 INTEGER NOT NULL,
	src_HITM INTEGER NOT NULL,
	src_RAM INTEGER NOT NULL,
	src_remote_RAM INTEGER NOT NULL,
	src_remote_cache INTEGER NOT NULL,
	src_uncached INTEGER NOT NULL,
	src_other INTEGER NOT NULL,
	build_id TEXT,
	dso TEXT,
	type_id INTEGER,
	by_address INTEGER NOT NULL DEFAULT 0
);
