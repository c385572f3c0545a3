-- Skill eval runs (issue 12): every `skills eval` run is remembered with the model it ran on, so
-- the Composer shows a pass rate per model and how it moved. Keyed by the folded skill name
-- (name_key) like skill_versions, so the record survives a delete and a re-import.
CREATE TABLE skill_eval_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name_key TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  -- "provider:model", or '' when no model was configured (trigger evals and unjudged checks).
  model TEXT NOT NULL,
  -- Which evals ran: all of them, only trigger evals or only output evals.
  only TEXT NOT NULL CHECK (only IN ('all', 'trigger', 'output')),
  total INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  pass_rate REAL NOT NULL,
  threshold REAL NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  estimated_cost REAL,
  duration_ms INTEGER NOT NULL,
  -- The per-eval results as JSON (the contract's EvalResultView list).
  results TEXT NOT NULL,
  -- Why it ran: an eval from the CLI or the Composer, or the before/after of an optimization.
  origin TEXT NOT NULL CHECK (origin IN ('eval', 'optimize_before', 'optimize_after')),
  created_at TEXT NOT NULL
);
CREATE INDEX skill_eval_runs_by_name ON skill_eval_runs (name_key, model, id);
