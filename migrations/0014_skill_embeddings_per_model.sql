-- A skill's vectors from more than one model side by side: the static table phase 1 always has
-- and the sentence-embedding model (e5) it fuses with when installed. Keyed by skill and model,
-- so saving one model's vector never overwrites the other's; rows carry over unchanged.

CREATE TABLE skill_embeddings_by_model (
  skill_id TEXT NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (skill_id, model)
);
INSERT INTO skill_embeddings_by_model (skill_id, model, text_hash, vector)
  SELECT skill_id, model, text_hash, vector FROM skill_embeddings;
DROP TABLE skill_embeddings;
ALTER TABLE skill_embeddings_by_model RENAME TO skill_embeddings;
