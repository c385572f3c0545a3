-- Errors as data: a code and a message in their own columns, never "CODE: message" text to parse.
-- Chat replies get both columns (the old `error` text column is no longer written); a trace keeps
-- the design's `error` column for the message and gains `error_code`. Rows written before this
-- migration are split once, here.
ALTER TABLE chat_messages ADD COLUMN error_code TEXT;
ALTER TABLE chat_messages ADD COLUMN error_message TEXT;
UPDATE chat_messages
SET error_code = substr(error, 1, instr(error, ': ') - 1), error_message = substr(error, instr(error, ': ') + 2)
WHERE error IS NOT NULL AND error GLOB '[A-Z][A-Z_]*: *' AND instr(substr(error, 1, instr(error, ': ') - 1), ' ') = 0;
UPDATE chat_messages SET error_code = 'INTERNAL', error_message = error
WHERE error IS NOT NULL AND error_code IS NULL;
UPDATE chat_messages SET error = NULL WHERE error IS NOT NULL;

ALTER TABLE skill_execution_traces ADD COLUMN error_code TEXT;
UPDATE skill_execution_traces
SET error_code = substr(error, 1, instr(error, ': ') - 1), error = substr(error, instr(error, ': ') + 2)
WHERE error IS NOT NULL AND error GLOB '[A-Z][A-Z_]*: *' AND instr(substr(error, 1, instr(error, ': ') - 1), ' ') = 0;
UPDATE skill_execution_traces SET error_code = 'ASSERTION_FAILED'
WHERE error IS NOT NULL AND error_code IS NULL AND error LIKE 'assertion failed: %';
UPDATE skill_execution_traces SET error_code = 'INTERNAL' WHERE error IS NOT NULL AND error_code IS NULL;
