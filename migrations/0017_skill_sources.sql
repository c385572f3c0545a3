-- Skill sources: a store's subscriptions to git repositories and HTTP catalogs (skill_sources,
-- with the catalog's marketplace id and ETag) and, per skill installed from one, what the user
-- accepted (source_skills: revision, upstream hash, the SHA-256 of each file as stored,
-- permissions and scan report). IF NOT EXISTS: builds before this migration created the same
-- tables on first use.
CREATE TABLE IF NOT EXISTS skill_sources (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('git', 'catalog')),
  url TEXT NOT NULL,
  ref TEXT,
  subdir TEXT,
  marketplace_id TEXT,
  sync_etag TEXT,
  revision TEXT,
  snapshot TEXT,
  checked_at TEXT,
  check_error TEXT,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS source_skills (
  source_id TEXT NOT NULL REFERENCES skill_sources(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  revision TEXT NOT NULL,
  upstream_hash TEXT NOT NULL,
  files TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  permissions TEXT NOT NULL,
  scan TEXT NOT NULL,
  accepted_risk INTEGER NOT NULL DEFAULT 0,
  installed_at TEXT NOT NULL,
  PRIMARY KEY (source_id, name_key)
) WITHOUT ROWID;
