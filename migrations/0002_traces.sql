-- One row per artifact execution (the design's trace table, column for column).
CREATE TABLE skill_execution_traces (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  skill_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  artifact_kind TEXT NOT NULL,
  rendered_input TEXT,
  raw_output TEXT,
  error TEXT,
  started_at TEXT NOT NULL,
  completed_at TEXT,
  duration_ms INTEGER,
  input_tokens INTEGER,
  output_tokens INTEGER,
  model_id TEXT,
  estimated_cost REAL,
  assertions_run INTEGER DEFAULT 0,
  assertions_passed INTEGER DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE INDEX idx_traces_session_id ON skill_execution_traces(session_id);
CREATE INDEX idx_traces_skill_id ON skill_execution_traces(skill_id);
CREATE INDEX idx_traces_artifact_id ON skill_execution_traces(artifact_id);
