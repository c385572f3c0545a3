-- An Agent Skills folder's Python scripts are files the model runs with arguments (run_script),
-- not programs to run whenever the skill is applied. Imports used to store them as code_template
-- artifacts marked `template: false` with the file's path; such rows become the resource files a
-- fresh import makes today (content, path and other metadata kept), so Run skill and apply_skill
-- no longer execute them. SkillDesk's own code templates (no path, or templated) are untouched.
UPDATE skill_artifacts
SET kind = 'resource',
    metadata = json_remove(metadata, '$.template'),
    updated_at = datetime('now')
WHERE kind = 'code_template'
  AND json_valid(metadata)
  AND json_extract(metadata, '$.template') = 0
  AND json_type(metadata, '$.template') = 'false'
  AND json_type(metadata, '$.path') = 'text'
  AND lower(json_extract(metadata, '$.path')) LIKE '%.py';
