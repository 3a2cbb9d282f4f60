SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    WHERE ((`_0`.`id` IN UNNEST(@p1)) AND (`_0`.`title` LIKE @p2) AND (NOT (`_0`.`title` NOT LIKE @p3)) AND ((`_0`.`artist_id` NOT IN UNNEST(@p4)) OR (`_0`.`artist_id` IS NULL) OR EXISTS (
      SELECT 1
      FROM `public`.`artists` AS `_2`
      WHERE (`_2`.`id` = `_0`.`artist_id` AND (`_2`.`name` >= @p5)))))) AS `_1`
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":[1,2,3]},{"kind":"const","value":"A%"},{"kind":"const","value":"%x"},{"kind":"variable","name":"ids","encoding":"plain","allowNull":false},{"kind":"const","value":"B"}]
