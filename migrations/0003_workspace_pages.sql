-- Workspace pages: the workspace folder's Markdown files, indexed for the sandbox host functions
-- (workspace_search, get_page, get_pages_by_type, get_tags, get_references, get_history).

CREATE TABLE workspace_pages (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL UNIQUE,          -- relative to the workspace folder, '/' separated
  slug        TEXT NOT NULL UNIQUE,          -- what [[links]] resolve to
  title       TEXT NOT NULL,
  type        TEXT,                          -- frontmatter `type`
  tags        TEXT NOT NULL DEFAULT '[]',    -- JSON array of frontmatter tags (and #tags)
  frontmatter TEXT NOT NULL DEFAULT '{}',    -- the whole frontmatter as JSON
  body        TEXT NOT NULL,                 -- the Markdown without its frontmatter
  hash        TEXT NOT NULL,                 -- sha256 of the file
  size        INTEGER NOT NULL,
  mtime_ms    INTEGER NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX workspace_pages_type ON workspace_pages(type);

CREATE TABLE workspace_page_tags (
  page_id INTEGER NOT NULL REFERENCES workspace_pages(id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,
  PRIMARY KEY (page_id, tag)
) WITHOUT ROWID;
CREATE INDEX workspace_page_tags_tag ON workspace_page_tags(tag);

CREATE TABLE workspace_page_links (
  page_id     INTEGER NOT NULL REFERENCES workspace_pages(id) ON DELETE CASCADE,
  target_slug TEXT NOT NULL,                 -- may name a page that does not exist (yet)
  target_text TEXT NOT NULL,                 -- the link as written
  PRIMARY KEY (page_id, target_slug)
) WITHOUT ROWID;
CREATE INDEX workspace_page_links_target ON workspace_page_links(target_slug);

-- Every indexed version of a page, keyed by path so history survives a page's removal.
CREATE TABLE workspace_page_revisions (
  id         INTEGER PRIMARY KEY,
  path       TEXT NOT NULL,
  revision   INTEGER NOT NULL,
  title      TEXT NOT NULL,
  hash       TEXT NOT NULL,
  size       INTEGER NOT NULL,
  body       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (path, revision)
);

CREATE VIRTUAL TABLE workspace_pages_fts USING fts5(
  title, body, tags,
  content = 'workspace_pages', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER workspace_pages_ai AFTER INSERT ON workspace_pages BEGIN
  INSERT INTO workspace_pages_fts(rowid, title, body, tags) VALUES (new.id, new.title, new.body, new.tags);
END;
CREATE TRIGGER workspace_pages_ad AFTER DELETE ON workspace_pages BEGIN
  INSERT INTO workspace_pages_fts(workspace_pages_fts, rowid, title, body, tags)
    VALUES ('delete', old.id, old.title, old.body, old.tags);
END;
CREATE TRIGGER workspace_pages_au AFTER UPDATE ON workspace_pages BEGIN
  INSERT INTO workspace_pages_fts(workspace_pages_fts, rowid, title, body, tags)
    VALUES ('delete', old.id, old.title, old.body, old.tags);
  INSERT INTO workspace_pages_fts(rowid, title, body, tags) VALUES (new.id, new.title, new.body, new.tags);
END;
