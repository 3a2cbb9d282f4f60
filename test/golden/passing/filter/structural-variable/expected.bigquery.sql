SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`
  FROM (
    SELECT `_0`.*
    FROM `public`.`albums` AS `_0`
    WHERE ((`_0`.`title` = @p1) AND (`_0`.`id` IN UNNEST(@p2)))) AS `_1`
  LIMIT @global_select_limit) AS `albums`)) AS `j`;
-- params: [{"kind":"const","value":"x"},{"kind":"const","value":[1,2]}]
