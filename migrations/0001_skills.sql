-- Skill packages and their artifacts (the design's two tables), plus the Phase-1 match index.

CREATE TABLE skills (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  version TEXT NOT NULL DEFAULT '1.0.0',
  tags TEXT,                 -- JSON array of strings
  source TEXT NOT NULL DEFAULT 'user' CHECK (source IN ('system', 'community', 'user')),
  author TEXT,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')),
  intent_patterns TEXT,      -- JSON array of strings
  trigger_phrases TEXT,      -- JSON array of strings
  marketplace_id TEXT,
  sync_etag TEXT,
  -- SkillDesk additions
  when_to_use TEXT,          -- "when" guidance shown in the skill index
  modalities TEXT,           -- JSON array, e.g. ["text","image"]
  requires TEXT,             -- JSON array of capabilities, e.g. ["python","llm"]
  always_on INTEGER NOT NULL DEFAULT 0,
  license TEXT,              -- Agent Skills frontmatter
  compatibility TEXT,
  metadata TEXT,             -- JSON object (Agent Skills metadata map)
  allowed_tools TEXT         -- Agent Skills `allowed-tools`
);

CREATE INDEX idx_skills_source ON skills(source);
CREATE INDEX idx_skills_name ON skills(name);
CREATE INDEX idx_skills_always_on ON skills(always_on) WHERE always_on = 1;

CREATE TABLE skill_artifacts (
  id TEXT PRIMARY KEY,
  skill_id TEXT NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('description', 'prompt_template', 'code_template', 'dspy_module', 'approach', 'example', 'resource')),
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

CREATE INDEX idx_skill_artifacts_skill_id ON skill_artifacts(skill_id);
CREATE INDEX idx_skill_artifacts_kind ON skill_artifacts(kind);

-- Phase-1 index: BM25 over name, description, tags, intent patterns and trigger phrases.
-- Kept in step with `skills` by triggers; rowid follows skills.rowid.
CREATE VIRTUAL TABLE skills_fts USING fts5(
  name, description, tags, intent_patterns, trigger_phrases,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Normalised trigger phrases for exact-phrase lookup (a phrase found in the message ranks first).
CREATE TABLE skill_triggers (
  phrase TEXT NOT NULL,
  skill_id TEXT NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
  words INTEGER NOT NULL,
  PRIMARY KEY (phrase, skill_id)
) WITHOUT ROWID;
CREATE INDEX idx_skill_triggers_skill ON skill_triggers(skill_id);

CREATE TRIGGER skills_fts_ai AFTER INSERT ON skills BEGIN
  INSERT INTO skills_fts(rowid, name, description, tags, intent_patterns, trigger_phrases)
  VALUES (new.rowid, new.name, new.description,
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.tags, '[]'))),
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.intent_patterns, '[]'))),
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.trigger_phrases, '[]'))));
END;

CREATE TRIGGER skills_fts_ad AFTER DELETE ON skills BEGIN
  DELETE FROM skills_fts WHERE rowid = old.rowid;
END;

CREATE TRIGGER skills_fts_au AFTER UPDATE OF name, description, tags, intent_patterns, trigger_phrases ON skills BEGIN
  DELETE FROM skills_fts WHERE rowid = old.rowid;
  INSERT INTO skills_fts(rowid, name, description, tags, intent_patterns, trigger_phrases)
  VALUES (new.rowid, new.name, new.description,
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.tags, '[]'))),
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.intent_patterns, '[]'))),
          (SELECT group_concat(value, ' | ') FROM json_each(coalesce(new.trigger_phrases, '[]'))));
END;

-- Which seed skills (and versions) were last applied, so a user's deletion of a system skill sticks
-- until a newer seed version ships.
CREATE TABLE seeded_skills (
  name TEXT PRIMARY KEY,
  version TEXT NOT NULL
);

-- Column weights for BM25 ranking: name, description, tags, intent patterns, trigger phrases.
INSERT INTO skills_fts(skills_fts, rank) VALUES ('rank', 'bm25(6.0, 2.0, 3.0, 3.0, 4.0)');
