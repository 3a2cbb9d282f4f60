SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `a_key_that_is_longer_than_sixty_three_bytes_which_postgres_would_truncate`, (
    SELECT AS STRUCT CAST(`_3`.`id` AS STRING) AS `id`, `_3`.`name` AS `name`
    FROM (
      SELECT `_2`.*
      FROM `public`.`artists` AS `_2`
      WHERE `_2`.`id` = `_1`.`artist_id`) AS `_3`
    LIMIT 1) AS `artist`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    ORDER BY `_0`.`id` ASC NULLS FIRST
    LIMIT @p1) AS `_1`
  ORDER BY `_1`.`id` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":2}]
