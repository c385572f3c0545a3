-- Two indexes that repeat one SQLite already keeps: `skills.name` is UNIQUE (its own index), and
-- UNIQUE (skill_id, name, model_variant) on artifacts starts with skill_id, so it serves every
-- look-up by skill (and the cascade from skills). Each cost every skill or artifact write an
-- index insert for nothing.
DROP INDEX IF EXISTS idx_skills_name;
DROP INDEX IF EXISTS idx_skill_artifacts_skill_id;
