SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, ARRAY(
    SELECT AS STRUCT CAST(`_5`.`id` AS STRING) AS `id`
    FROM (
      SELECT `_4`.*
      FROM `public`.`albums` AS `_4`
      WHERE (`_4`.`artist_id` = `_1`.`id` AND EXISTS (
        SELECT 1
        FROM `public`.`artists` AS `_6`
        WHERE (`_6`.`id` = `_4`.`artist_id` AND (`_6`.`name` <> @p1))))) AS `_5`
    LIMIT @global_select_limit) AS `albums`
  FROM (
    SELECT `_0`.*
    FROM `public`.`artists` AS `_0`
    WHERE EXISTS (
      SELECT 1
      FROM `public`.`albums` AS `_2`
      WHERE (`_2`.`artist_id` = `_0`.`id` AND EXISTS (
        SELECT 1
        FROM `public`.`tracks` AS `_3`
        WHERE (`_3`.`album_id` = `_2`.`id` AND (`_3`.`name` = @p2)))))) AS `_1`
  LIMIT @global_select_limit) AS `artists`)) AS `j`;
-- params: [{"kind":"const","value":"y"},{"kind":"const","value":"x"}]
