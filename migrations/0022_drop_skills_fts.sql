-- Phase 1 matches in memory (the skill index) and never reads the FTS5 table any more; keeping it
-- in step cost every skill write three json_each scans and an FTS5 insert (about a quarter of a
-- bulk import). The triggers go first so no write fires into a table that is gone.
DROP TRIGGER IF EXISTS skills_fts_ai;
DROP TRIGGER IF EXISTS skills_fts_ad;
DROP TRIGGER IF EXISTS skills_fts_au;
DROP TABLE IF EXISTS skills_fts;
