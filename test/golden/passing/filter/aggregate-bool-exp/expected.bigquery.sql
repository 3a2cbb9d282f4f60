SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_0`.*
    FROM `public`.`artists` AS `_0`
    WHERE EXISTS (
      SELECT 1
      FROM (
        SELECT COUNT(*) AS `aggregate_value`
        FROM `public`.`albums` AS `_2`
        WHERE (`_2`.`artist_id` = `_0`.`id` AND (`_2`.`title` LIKE @p1))) AS `_3`
      WHERE (`_3`.`aggregate_value` > @p2))) AS `_1`
  LIMIT @global_select_limit) AS `artists`, ARRAY(
  SELECT AS STRUCT CAST(`_5`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_4`.*
    FROM `public`.`artists` AS `_4`
    WHERE EXISTS (
      SELECT 1
      FROM (
        SELECT COUNT(DISTINCT `_6`.`title`) AS `aggregate_value`
        FROM `public`.`albums` AS `_6`
        WHERE `_6`.`artist_id` = `_4`.`id`) AS `_7`
      WHERE (`_7`.`aggregate_value` = @p3))) AS `_5`
  LIMIT @global_select_limit) AS `distinct`)) AS `j`;
-- params: [{"kind":"const","value":"A%"},{"kind":"const","value":1},{"kind":"const","value":2}]
