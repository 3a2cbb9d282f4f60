SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`, (
    SELECT AS STRUCT CAST(`_3`.`id` AS STRING) AS `id`, `_3`.`name` AS `name`
    FROM (
      SELECT `_2`.*
      FROM `public`.`artists` AS `_2`
      WHERE `_2`.`id` = `_1`.`artist_id`) AS `_3`
    LIMIT 1) AS `artist`, ARRAY(
    SELECT AS STRUCT CAST(`_5`.`id` AS STRING) AS `id`, `_5`.`name` AS `name`, CAST(`_5`.`milliseconds` AS STRING) AS `milliseconds`, (
      SELECT AS STRUCT `_7`.`name` AS `name`
      FROM (
        SELECT `_6`.*
        FROM `public`.`genres` AS `_6`
        WHERE `_6`.`id` = `_5`.`genre_id`) AS `_7`
      LIMIT 1) AS `genre`
    FROM (
      SELECT `_4`.*
      FROM `public`.`tracks` AS `_4`
      WHERE `_4`.`album_id` = `_1`.`id`) AS `_5`
    ORDER BY `_5`.`id` ASC NULLS FIRST
    LIMIT @global_select_limit) AS `tracks`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    ORDER BY `_0`.`id` ASC NULLS FIRST
    LIMIT @p1) AS `_1`
  ORDER BY `_1`.`id` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":50}]
