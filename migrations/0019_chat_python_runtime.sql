-- The runtime a chat's run_python uses ('pyodide' or 'full'); null follows the workspace, then
-- Settings (both kept in tool_preferences under 'python_runtime').
ALTER TABLE chat_sessions ADD COLUMN python_runtime TEXT CHECK (python_runtime IN ('pyodide', 'full'));
