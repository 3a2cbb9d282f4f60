SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`, (
    SELECT AS STRUCT `_4`.`name` AS `name`
    FROM (
      SELECT `_3`.*
      FROM `public`.`artists` AS `_3`
      WHERE `_3`.`id` = `_1`.`artist_id`) AS `_4`
    LIMIT 1) AS `artist`, ARRAY(
    SELECT AS STRUCT `_6`.`name` AS `name`
    FROM (
      SELECT `_5`.*
      FROM `public`.`tracks` AS `_5`
      WHERE `_5`.`album_id` = `_1`.`id`) AS `_6`
    LIMIT @global_select_limit) AS `tracks`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    WHERE EXISTS (
      SELECT 1
      FROM `public`.`artists` AS `_2`
      WHERE (`_2`.`id` = `_0`.`artist_id` AND (`_2`.`id` = @p1)))
    LIMIT @p2) AS `_1`
  LIMIT @global_select_limit) AS `albums`, STRUCT((
  SELECT AS STRUCT CAST(COUNT(*) AS STRING) AS `count`
  FROM (
    SELECT `_7`.*
    FROM `public`.`artists` AS `_7`) AS `_8`) AS `aggregate`) AS `artists_aggregate`)) AS `j`;
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":10}]
