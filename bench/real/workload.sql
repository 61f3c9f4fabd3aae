-- sqlite3's workload for accuracy-real.sh: inserts, an index, a
-- group-by, a join, an update and a LIKE scan over 200,000 rows.
PRAGMA journal_mode = OFF;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);
WITH RECURSIVE x(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM x WHERE i < 200000)
INSERT INTO t SELECT i, hex(randomblob(12)), (random() % 1000) / 7.0, i % 997 FROM x;
CREATE INDEX t_d ON t(d);
CREATE TABLE u AS SELECT d, count(*) AS n, avg(c) AS m FROM t GROUP BY d;
SELECT count(*), sum(u.n) FROM t JOIN u ON t.d = u.d WHERE t.b > '8';
UPDATE t SET c = c * 2 WHERE d < 300;
SELECT sum(length(b)) FROM t WHERE b LIKE '%AB%';
SELECT d, max(c) FROM t GROUP BY d ORDER BY 2 DESC LIMIT 3;
DELETE FROM t WHERE a % 3 = 0;
SELECT count(*) FROM t WHERE d BETWEEN 100 AND 400;
