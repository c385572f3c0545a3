-- Artifact kinds become rows of a lookup table instead of a CHECK list, so adding a kind adds a
-- row (the app registers the kinds it knows when it opens a store) rather than rebuilding
-- skill_artifacts again. SQLite cannot drop a CHECK in place: the table is rebuilt, rows kept.
CREATE TABLE artifact_kinds (
  name TEXT PRIMARY KEY
) WITHOUT ROWID;

INSERT INTO artifact_kinds (name) VALUES
  ('description'), ('prompt_template'), ('code_template'), ('dspy_module'),
  ('approach'), ('example'), ('resource');

CREATE TABLE skill_artifacts_next (
  id TEXT PRIMARY KEY,
  skill_id TEXT NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
  kind TEXT NOT NULL REFERENCES artifact_kinds(name),
  name TEXT NOT NULL,
  ordinal INTEGER NOT NULL DEFAULT 0,
  content TEXT NOT NULL,
  model_variant TEXT,
  metadata TEXT,             -- JSON object
  state_blob BLOB,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')),
  UNIQUE (skill_id, name, model_variant)
);

INSERT INTO skill_artifacts_next
  (id, skill_id, kind, name, ordinal, content, model_variant, metadata, state_blob, created_at, updated_at)
SELECT id, skill_id, kind, name, ordinal, content, model_variant, metadata, state_blob, created_at, updated_at
FROM skill_artifacts;

-- Dropping the old table drops its indexes and the index-log triggers of 0005; both come back below.
DROP TABLE skill_artifacts;
ALTER TABLE skill_artifacts_next RENAME TO skill_artifacts;

CREATE INDEX idx_skill_artifacts_skill_id ON skill_artifacts(skill_id);
CREATE INDEX idx_skill_artifacts_kind ON skill_artifacts(kind);

CREATE TRIGGER skill_index_artifacts_ai AFTER INSERT ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (new.skill_id);
END;
CREATE TRIGGER skill_index_artifacts_au AFTER UPDATE ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.skill_id);
  INSERT INTO skill_index_log (skill_id) SELECT new.skill_id WHERE new.skill_id != old.skill_id;
END;
CREATE TRIGGER skill_index_artifacts_ad AFTER DELETE ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.skill_id);
END;
