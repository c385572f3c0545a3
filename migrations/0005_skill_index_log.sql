-- Which skills changed, in order, so an in-memory phase-1 index (in this process or another) can
-- catch up with only those skills. Only the last 5,000 changes are kept; an index further behind
-- rebuilds from scratch.

CREATE TABLE skill_index_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  skill_id TEXT NOT NULL
);

CREATE TRIGGER skill_index_log_trim AFTER INSERT ON skill_index_log BEGIN
  DELETE FROM skill_index_log WHERE seq <= new.seq - 5000;
END;

CREATE TRIGGER skill_index_skills_ai AFTER INSERT ON skills BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (new.id);
END;
CREATE TRIGGER skill_index_skills_au AFTER UPDATE ON skills BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.id);
  INSERT INTO skill_index_log (skill_id) SELECT new.id WHERE new.id != old.id;
END;
CREATE TRIGGER skill_index_skills_ad AFTER DELETE ON skills BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.id);
END;

CREATE TRIGGER skill_index_artifacts_ai AFTER INSERT ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (new.skill_id);
END;
CREATE TRIGGER skill_index_artifacts_au AFTER UPDATE ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.skill_id);
  INSERT INTO skill_index_log (skill_id) SELECT new.skill_id WHERE new.skill_id != old.skill_id;
END;
CREATE TRIGGER skill_index_artifacts_ad AFTER DELETE ON skill_artifacts BEGIN
  INSERT INTO skill_index_log (skill_id) VALUES (old.skill_id);
END;
