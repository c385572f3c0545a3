-- The hosts a chat's run_python code may reach (a JSON array of `host` or `host:port`, through the
-- app's http_request gate, https only): empty means no network, the default.
ALTER TABLE chat_sessions ADD COLUMN python_hosts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(python_hosts) AND json_type(python_hosts) = 'array');
