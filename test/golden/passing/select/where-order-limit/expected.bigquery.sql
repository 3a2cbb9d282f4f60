SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, `_1`.`title` AS `title`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    WHERE ((`_0`.`title` LIKE @p1) AND (`_0`.`id` > @p2))
    ORDER BY `_0`.`title` DESC NULLS LAST, `_0`.`id` ASC NULLS FIRST
    LIMIT @p3 OFFSET @p4) AS `_1`
  ORDER BY `_1`.`title` DESC NULLS LAST, `_1`.`id` ASC NULLS FIRST
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":"%Rock%"},{"kind":"const","value":3},{"kind":"const","value":10},{"kind":"const","value":5}]
