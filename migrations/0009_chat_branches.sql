-- Chat features (issue 13): branching conversations, attachments and a model per chat.
-- A message follows `parent_id` (null for a session's first message); an edited message or a
-- regenerated reply is a sibling of the one it replaces, so the older branch stays reachable.
-- `leaf_id` is the last message of the branch a session shows. Rows written before this
-- migration form one straight branch, in the order they were stored.
ALTER TABLE chat_messages ADD COLUMN parent_id TEXT;
-- JSON: [{name, media_type, size, text}] sent with a user message (text files only).
ALTER TABLE chat_messages ADD COLUMN attachments TEXT;
ALTER TABLE chat_sessions ADD COLUMN leaf_id TEXT;
-- JSON {provider, model}: the model this chat uses; null follows Settings.
ALTER TABLE chat_sessions ADD COLUMN model TEXT;

UPDATE chat_messages SET parent_id = (
  SELECT p.id FROM chat_messages p
  WHERE p.session_id = chat_messages.session_id AND p.seq < chat_messages.seq
  ORDER BY p.seq DESC LIMIT 1
);
UPDATE chat_sessions SET leaf_id = (
  SELECT m.id FROM chat_messages m WHERE m.session_id = chat_sessions.id ORDER BY m.seq DESC LIMIT 1
);
CREATE INDEX idx_chat_messages_parent ON chat_messages(session_id, parent_id);
