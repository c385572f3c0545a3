-- Skill history: every change to a skill (an import that updates it, a save, a restore, a delete,
-- a seed update) keeps the version it replaces — the whole package as JSON, its content hash, when,
-- what made the change and an optional note. Keyed by the folded name (name_key), so a skill's
-- history survives a delete and can be restored from.
CREATE TABLE skill_versions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  package TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('import', 'save', 'restore', 'delete', 'seed', 'fork')),
  note TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX skill_versions_by_name ON skill_versions (name_key, id);
