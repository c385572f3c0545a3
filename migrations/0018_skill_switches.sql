-- Per-skill switches of a store (Claude Code's skillOverrides): a skill is on unless a row says
-- 'name-only' (listed and started by name, never matched into a prompt) or 'off' (hidden from the
-- model, matching, the MCP server and the / menu). Keyed by name, not id, so a switch outlives
-- updates and a workspace can switch an account skill.
CREATE TABLE skill_switches (
  name_key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('name-only', 'off')),
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
