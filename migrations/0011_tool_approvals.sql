-- Issue 16: tools the user chose to "always allow" in this store's workspace (MCP tools by server
-- and tool name; skills as server 'skill'), and the workspace's tool preferences (auto-running
-- read-only-annotated tools). Revocable from Settings → Tools.
CREATE TABLE tool_approvals (
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (server, tool)
) WITHOUT ROWID;

CREATE TABLE tool_preferences (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
