-- Issue 14: each skill's static embedding (phase 1's semantic half), computed from its text when
-- the skill is imported or saved and kept here so opening a catalog does not embed every skill
-- again. `model` names the embedding table that made the vector (another table's vectors are
-- stale); `text_hash` is a hash of the text embedded (a changed skill is embedded anew).

CREATE TABLE skill_embeddings (
  skill_id TEXT PRIMARY KEY REFERENCES skills(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL
);
