-- Skill names compare by NFKC and full Unicode case folding (electron/store/skill-name.ts), which
-- SQLite's lower() and COLLATE NOCASE (ASCII only) cannot do: the app writes the folded key beside
-- the name, which keeps the form its author typed. One skill per key in each store.

ALTER TABLE skills ADD COLUMN name_key TEXT;

-- skilldesk_name_key() is the app's key function, registered on the connection that migrates.
UPDATE skills SET name_key = skilldesk_name_key(name);

-- Two names that only now compare equal (ÉTUDE and étude) may already share a store. The later one
-- gets a key no name folds to, so the upgrade never fails and both stay reachable by their exact
-- name; the first keeps the name for every other spelling.
UPDATE skills SET name_key = name_key || char(10) || id
WHERE rowid IN (
  SELECT rowid FROM (
    SELECT rowid, row_number() OVER (PARTITION BY name_key ORDER BY rowid) AS n FROM skills
  ) WHERE n > 1
);

CREATE UNIQUE INDEX idx_skills_name_key ON skills(name_key);
