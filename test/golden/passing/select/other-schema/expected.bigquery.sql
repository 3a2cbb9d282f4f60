SELECT TO_JSON_STRING(STRUCT(ARRAY(
  SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, CAST(`_1`.`total` AS STRING) AS `total`, `_1`.`placed_at` AS `placedAt`
  FROM (
    SELECT `_0`.*
    FROM `shop`.`orders` AS `_0`
    WHERE (`_0`.`placed_at` >= @p1)) AS `_1`
  LIMIT @global_select_limit) AS `shop_orders`)) AS `j`;
-- params: [{"kind":"const","value":"2020-01-01"}]
