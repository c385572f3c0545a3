-- Chat sessions and their messages, with an FTS5 index for memory recall across the workspace.

CREATE TABLE chat_sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_chat_sessions_updated ON chat_sessions(updated_at);

CREATE TABLE chat_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,     -- global order; also the FTS rowid
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'partial', 'error')),
  tool_calls TEXT,                           -- JSON: [{id, name, args, ok, result, skill, artifacts, trace_ids}]
  trace_ids TEXT,                            -- JSON array of skill_execution_traces ids
  skills TEXT,                               -- JSON: phase-1 matches shown to the model this turn
  model_id TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  estimated_cost REAL,
  error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_chat_messages_session ON chat_messages(session_id, seq);

CREATE VIRTUAL TABLE chat_messages_fts USING fts5(
  content,
  content = 'chat_messages',
  content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chat_messages_ai AFTER INSERT ON chat_messages BEGIN
  INSERT INTO chat_messages_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER chat_messages_ad AFTER DELETE ON chat_messages BEGIN
  INSERT INTO chat_messages_fts(chat_messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER chat_messages_au AFTER UPDATE OF content ON chat_messages BEGIN
  INSERT INTO chat_messages_fts(chat_messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
  INSERT INTO chat_messages_fts(rowid, content) VALUES (new.seq, new.content);
END;
