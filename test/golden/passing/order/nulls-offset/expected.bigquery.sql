SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`
  FROM (
    SELECT `_0`.*, (
      SELECT `_2`.`name`
      FROM `public`.`artists` AS `_2`
      WHERE `_2`.`id` = `_0`.`artist_id`
      LIMIT 1) AS `__o0`, (
      SELECT COUNT(*)
      FROM `public`.`tracks` AS `_3`
      WHERE `_3`.`album_id` = `_0`.`id`) AS `__o1`
    FROM `public`.`albums` AS `_0`
    ORDER BY `_0`.`artist_id` ASC NULLS LAST, `_0`.`title` DESC NULLS FIRST, `__o0` DESC NULLS LAST, `__o1` ASC NULLS FIRST
    LIMIT @p1 OFFSET @p2) AS `_1`
  ORDER BY `_1`.`artist_id` ASC NULLS LAST, `_1`.`title` DESC NULLS FIRST, `_1`.`__o0` DESC NULLS LAST, `_1`.`__o1` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":2},{"kind":"const","value":1}]
