-- A trace keeps a bounded excerpt of a huge rendered input or raw output (its start and end), not
-- the whole text: these hold the full sizes in UTF-8 bytes, NULL when the whole text is stored.
ALTER TABLE skill_execution_traces ADD COLUMN rendered_input_bytes INTEGER;
ALTER TABLE skill_execution_traces ADD COLUMN raw_output_bytes INTEGER;
