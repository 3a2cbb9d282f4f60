SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_0`.*, (
      SELECT (
        SELECT `_3`.`name`
        FROM `public`.`artists` AS `_3`
        WHERE `_3`.`id` = `_2`.`artist_id`
        LIMIT 1)
      FROM `public`.`albums` AS `_2`
      WHERE `_2`.`id` = `_0`.`album_id`
      LIMIT 1) AS `__o0`, (
      SELECT `_4`.`title`
      FROM `public`.`albums` AS `_4`
      WHERE `_4`.`id` = `_0`.`album_id`
      LIMIT 1) AS `__o1`
    FROM `public`.`tracks` AS `_0`) AS `_1`
  ORDER BY `_1`.`__o0` ASC NULLS FIRST, `_1`.`__o1` DESC NULLS LAST
  LIMIT @global_select_limit) AS `tracks`, ARRAY(
  SELECT AS STRUCT CAST(`_6`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_5`.*, (
      SELECT COUNT(*)
      FROM `public`.`albums` AS `_7`
      WHERE `_7`.`artist_id` = `_5`.`id`) AS `__o0`, (
      SELECT MAX(`_8`.`id`)
      FROM `public`.`albums` AS `_8`
      WHERE `_8`.`artist_id` = `_5`.`id`) AS `__o1`
    FROM `public`.`artists` AS `_5`) AS `_6`
  ORDER BY `_6`.`__o0` DESC NULLS LAST, `_6`.`__o1` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `artists`)) AS `j`;
-- params: []
