SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`name` AS `name`, (
    SELECT AS STRUCT `_3`.`title` AS `title`, (
      SELECT AS STRUCT `_6`.`name` AS `name`
      FROM (
        SELECT `_5`.*
        FROM `public`.`artists` AS `_5`
        WHERE `_5`.`id` = `_3`.`artist_id`) AS `_6`
      LIMIT 1) AS `artist`
    FROM (
      SELECT `_2`.*
      FROM `public`.`albums` AS `_2`
      WHERE (`_2`.`id` = `_1`.`album_id` AND EXISTS (
        SELECT 1
        FROM `public`.`artists` AS `_4`
        WHERE (`_4`.`id` = `_2`.`artist_id` AND (`_4`.`id` = @p1))))) AS `_3`
    LIMIT 1) AS `album`
  FROM (
    SELECT `_0`.*
    FROM `public`.`tracks` AS `_0`
    WHERE (`_0`.`album_id` IN UNNEST(@p2))) AS `_1`
  LIMIT @global_select_limit) AS `tracks`, STRUCT((
  SELECT AS STRUCT CAST(COUNT(*) AS STRING) AS `count`
  FROM (
    SELECT `_7`.*
    FROM `public`.`artists` AS `_7`) AS `_8`) AS `aggregate`, ARRAY(
  SELECT AS STRUCT `_10`.`name` AS `name`
  FROM (
    SELECT `_9`.*
    FROM `public`.`artists` AS `_9`) AS `_10`) AS `nodes`) AS `artists_aggregate`)) AS `j`;
-- params: [{"kind":"session","name":"x-engine-user-id","encoding":"plain"},{"kind":"const","value":[1,2]}]
