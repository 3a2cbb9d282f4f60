SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT `_1`.`name` AS `name`, STRUCT((
    SELECT AS STRUCT CAST(COUNT(*) AS STRING) AS `count`
    FROM (
      SELECT `_2`.*
      FROM `public`.`albums` AS `_2`
      WHERE `_2`.`artist_id` = `_1`.`id`) AS `_3`) AS `aggregate`) AS `albums_aggregate`, ARRAY(
    SELECT AS STRUCT `_5`.`title` AS `title`, STRUCT((
      SELECT AS STRUCT CAST(COUNT(*) AS STRING) AS `count`, STRUCT(CAST(SUM(`_7`.`milliseconds`) AS STRING) AS `milliseconds`) AS `sum`
      FROM (
        SELECT `_6`.*
        FROM `public`.`tracks` AS `_6`
        WHERE `_6`.`album_id` = `_5`.`id`) AS `_7`) AS `aggregate`) AS `tracks_aggregate`
    FROM (
      SELECT `_4`.*
      FROM `public`.`albums` AS `_4`
      WHERE `_4`.`artist_id` = `_1`.`id`
      LIMIT @p1) AS `_5`
    LIMIT @global_select_limit) AS `albums`
  FROM (
    SELECT `_0`.*
    FROM `public`.`artists` AS `_0`
    ORDER BY `_0`.`id` ASC NULLS FIRST
    LIMIT @p2) AS `_1`
  ORDER BY `_1`.`id` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `artists`)) AS `j`;
-- params: [{"kind":"const","value":3},{"kind":"const","value":100}]
