-- The phase-1 index of this store's skills, serialized, so a new process (a CLI command) loads it
-- instead of rebuilding it from every skill. `seq` is the skill_index_log head it was built at: a
-- reader catches up from there through the log, or rebuilds when the log no longer reaches back.
-- `format` names the indexing code and embedding it was built with; `crc` is the CRC-32 of `data`.
-- A cache: a row that does not match all three is ignored and rewritten, never trusted.

CREATE TABLE skill_index_cache (
  format TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  crc INTEGER NOT NULL,
  data BLOB NOT NULL
);
