-- Folders of this machine the user granted a chat (a JSON array of {name, path}): its run_script
-- and run_python runs see each read-only under inputs/<name>/. Paths of this machine: never exported.
ALTER TABLE chat_sessions ADD COLUMN folder_grants TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(folder_grants) AND json_type(folder_grants) = 'array');
