SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, CAST(`_1`.`album_id` AS STRING) AS `album_id`
  FROM (
    SELECT `_0`.*
    FROM `public`.`tracks` AS `_0`
    WHERE (EXISTS (
      SELECT 1
      FROM `public`.`albums` AS `_2`
      WHERE (`_2`.`id` = `_0`.`album_id` AND ((`_2`.`id` = `_0`.`album_id`) AND (`_2`.`artist_id` < `_0`.`milliseconds`)))) AND EXISTS (
      SELECT 1
      FROM `public`.`albums` AS `_3`
      WHERE (`_3`.`id` = `_0`.`album_id` AND (EXISTS (
        SELECT 1
        FROM `public`.`tracks` AS `_4`
        WHERE (`_4`.`album_id` = `_3`.`id` AND (`_4`.`album_id` = `_3`.`id`))) AND (`_3`.`title` LIKE @p1)))))) AS `_1`
  LIMIT @global_select_limit) AS `tracks`)) AS `j`;
-- params: [{"kind":"const","value":"A%"}]
