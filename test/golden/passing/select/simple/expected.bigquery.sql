SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`) AS `_1`
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: []
