-- Each model's skill vectors in one row, so a new process (a CLI command) reads a 10,000-skill
-- catalog's vectors as one blob instead of 10,000 rows of skill_embeddings (about 50 ms per model).
-- `data` pairs text hashes with vectors: a vector is a function of the model and the text, so an
-- entry is right whenever its hash is the one a skill's text has now, however old the row. `crc` is
-- the CRC-32 of `data`. A cache: skill_embeddings stays the record; a row that fails its CRC is
-- ignored and rewritten.

CREATE TABLE skill_vector_cache (
  model TEXT PRIMARY KEY,
  crc INTEGER NOT NULL,
  data BLOB NOT NULL
);
